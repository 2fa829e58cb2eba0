// SPDX-License-Identifier: MIT
#pragma once
// Filter 6 for one task: every redundant graph node (kind, op, source line, reason, FLOPs), then
// every input or parameter the output never depends on. Empty when the analysis did not run.

#include "metatypes.h"

#include <QAbstractTableModel>

#include <optional>

class RedundancyModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns { KindColumn, OpColumn, LineColumn, SourceColumn, ReasonColumn, FlopsColumn, ColumnCount };

    explicit RedundancyModel(QObject* parent = nullptr);

    void setTask(const ks::TaskResult* task);
    const std::optional<ks::RedundancyReport>& report() const { return m_report; }
    // One line above the table: "50% of FLOPs redundant: 1 op, 1 unused argument (4 ops tried on 3
    // seeds, CPU)", or why there is nothing to list.
    QString summary() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    std::optional<ks::RedundancyReport> m_report; // a copy: the matrix may replace the task
    bool m_taskFailed = false;
};
