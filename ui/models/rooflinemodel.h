// SPDX-License-Identifier: MIT
#pragma once
// Filter 5's roofline numbers for one task, as (quantity, value) rows: where the timings were
// taken (CPU timings marked as such), bytes, FLOPs, floors, eager time, efficiency, passes, the
// best rewrite, and which of the three rules flag under the active thresholds.

#include "metatypes.h"

#include <QAbstractTableModel>

#include <optional>
#include <utility>
#include <vector>

class RooflineModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns { QuantityColumn, ValueColumn, ColumnCount };
    enum Roles { FlaggedRole = Qt::UserRole + 1 }; // bool: this row's rule flags the task

    explicit RooflineModel(QObject* parent = nullptr);

    void setTask(const ks::TaskResult* task);
    void setThresholds(const ks::Thresholds& thresholds);
    // The value of the row named `quantity` (as in QuantityColumn), for tests and tooltips.
    QString value(const QString& quantity) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    struct Row {
        QString quantity, value, tip;
        bool flagged = false;
    };
    void rebuild();

    std::optional<ks::InefficiencyReport> m_report;
    bool m_taskFailed = false;
    ks::Thresholds m_thresholds = ks::Thresholds::defaults();
    std::vector<Row> m_rows;
};
