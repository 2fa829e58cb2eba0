// SPDX-License-Identifier: MIT
#pragma once
// Key/value view of how a run was made (device, LibTorch, preset, seeds...), for the summary.

#include "metatypes.h"

#include <QAbstractTableModel>

#include <utility>
#include <vector>

class RunInfoModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns { KeyColumn, ValueColumn, ColumnCount };

    explicit RunInfoModel(QObject* parent = nullptr);

    // fileThresholds: the thresholds stored in the results file (shown for reference).
    void setRunInfo(const ks::RunInfo& info, const ks::Thresholds& fileThresholds, int taskCount);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    QString value(const QString& key) const;

  private:
    std::vector<std::pair<QString, QString>> m_rows;
};
