// SPDX-License-Identifier: MIT
#pragma once
// Two results files side by side (issue 14: two devices, two seed counts, two threshold profiles,
// before and after a fix): one row per task of either file, per criterion the cell of A, the cell
// of B and the metric delta B - A, with the tasks whose flags differ marked and, by default, the
// only ones shown. The comparison itself is ks::diffResults, the same as `kernelsieve-cli diff`.
//
// A is not owned (the main window's results, which change while a run streams in): refresh()
// after it changes. B is owned. setThresholds() re-derives the flags in place, O(tasks).

#include "metatypes.h"

#include <ks/core/resultsdiff.h>

#include <QAbstractTableModel>

#include <optional>

class CompareModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns {
        IdColumn,
        NameColumn,
        PresenceColumn, // both / only in A / only in B
        DiffersColumn,  // how many criteria's flags differ
        FirstCriterionColumn,
        // Three per criterion, in criterion order: A, B, delta (columnOf()).
        ColumnCount = FirstCriterionColumn + 3 * ks::CriterionCount
    };
    enum class Part { A, B, Delta };

    enum Roles {
        SortRole = Qt::UserRole + 1, // numbers for metric, delta and count columns; NaN/absent last
        TaskIdRole,                  // any column
        DiffersRole,                 // any column: bool, some flag differs; a cell: its criterion's
        FlagStateRole                // an A or B cell: int(ks::FlagState)
    };

    explicit CompareModel(QObject* parent = nullptr);

    static int columnOf(ks::Criterion c, Part p) {
        return FirstCriterionColumn + 3 * static_cast<int>(c) + static_cast<int>(p);
    }
    static std::optional<ks::Criterion> criterionOf(int column);
    static Part partOf(int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // `a` must outlive the model or the next setA()/clear().
    void setA(const ks::RunResults* a, const QString& name);
    void setB(ks::RunResults b, const QString& name);
    void setThresholds(const ks::Thresholds& a, const ks::Thresholds& b);
    void refresh(); // A's tasks changed: the union again
    void clear();
    bool isActive() const { return m_a && m_hasB; }

    void setDifferingOnly(bool on);
    bool differingOnly() const { return m_differingOnly; }

    const ks::ResultsDiff& diff() const { return m_diff; }
    const ks::RunResults& resultsB() const { return m_b; }
    const ks::Thresholds& thresholdsA() const { return m_ta; }
    const ks::Thresholds& thresholdsB() const { return m_tb; }
    QString nameA() const { return m_nameA; }
    QString nameB() const { return m_nameB; }
    const ks::TaskDiff* taskDiff(int row) const;
    int rowOf(const QString& id) const;
    // Rich text: both runs, what they differ in, how many tasks differ.
    QString summaryText() const;

  signals:
    void comparisonChanged(); // after every refresh, re-threshold or filter change

  private:
    std::vector<int> shownRows() const;
    void rebuildRows();
    QString cellText(const ks::TaskDiff& t, ks::Criterion c, Part p) const;

    const ks::RunResults* m_a = nullptr;
    ks::RunResults m_b;
    bool m_hasB = false;
    QString m_nameA, m_nameB;
    ks::Thresholds m_ta = ks::Thresholds::defaults(), m_tb = ks::Thresholds::defaults();
    ks::ResultsDiff m_diff;
    std::vector<int> m_rows; // indices into m_diff.tasks shown
    bool m_differingOnly = true;
};
