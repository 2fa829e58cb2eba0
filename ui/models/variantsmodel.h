// SPDX-License-Identifier: MIT
#pragma once
// One task's kernels: the PyTorch eager baseline and each variant with validation and timing.

#include "resultsutil.h"

#include <QAbstractTableModel>

#include <optional>

class VariantsModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns {
        NameColumn,
        ValidationColumn,
        MedianColumn,
        IqrColumn,
        SpeedupColumn,
        BandwidthColumn,
        NoteColumn,
        ColumnCount
    };

    explicit VariantsModel(QObject* parent = nullptr);

    void setTask(const ks::TaskBench* task); // nullptr clears

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    std::optional<ks::TaskBench> m_task;
    std::vector<ResultsUtil::SpeedupBar> m_bars;
};
