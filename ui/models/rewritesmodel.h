// SPDX-License-Identifier: MIT
#pragma once
// Filter 5 for one task: every rewrite rule that fired on its graph (rule, source line, whether the
// rewritten graph matched the task on every seed, the largest difference, its time and speedup).
// Speedups at or above the active rewrite threshold are marked, as the matrix cell would flag them.

#include "metatypes.h"

#include <QAbstractTableModel>

#include <optional>

class RewritesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns { RuleColumn, LineColumn, EqualColumn, MaxDiffColumn, TimeColumn, SpeedupColumn, WhatColumn, ColumnCount };
    enum Roles { FlaggedRole = Qt::UserRole + 1 }; // bool: this rewrite alone flags the task

    explicit RewritesModel(QObject* parent = nullptr);

    void setTask(const ks::TaskResult* task);
    void setThresholds(const ks::Thresholds& thresholds);
    const std::optional<ks::InefficiencyReport>& report() const { return m_report; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    bool flags(const ks::RewriteResult& r) const;

    std::optional<ks::InefficiencyReport> m_report; // a copy: the matrix may replace the task
    ks::Thresholds m_thresholds = ks::Thresholds::defaults();
};
