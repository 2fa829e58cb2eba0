// SPDX-License-Identifier: MIT
#pragma once
// Results files side by side (issue 14: two devices, two seed counts, two threshold profiles,
// before and after a fix): a baseline A against one or more others B1..Bn. One row per task of
// any file; per criterion A's cell, then for each other file its cell and the metric delta
// Bk - A; the tasks whose flags differ from A's in some file are marked and, by default, the only
// ones shown. Each pair is ks::diffResults(A, Bk), the same as `kernelsieve-cli diff A Bk`; with
// one other file the columns are A, B, delta as before.
//
// A is not owned (the main window's results, which change while a run streams in): refresh()
// after it changes. The others are owned. setThresholds() re-derives the flags in place,
// O(files x tasks).

#include "metatypes.h"

#include <ks/core/resultsdiff.h>

#include <QAbstractTableModel>

#include <array>
#include <optional>
#include <vector>

class CompareModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns {
        IdColumn,
        NameColumn,
        PresenceColumn, // both / only in A / only in B (several files: which of them)
        DiffersColumn,  // how many criteria's flags differ from A's in some file
        // Per criterion, in criterion order, a group of columns: A, then B_k and delta_k for each
        // other file k (columnOf()); the count depends on the number of files.
        FirstCriterionColumn
    };
    enum class Part { A, B, Delta };

    enum Roles {
        SortRole = Qt::UserRole + 1, // numbers for metric, delta and count columns; NaN/absent last
        TaskIdRole,                  // any column
        // Any column: bool, some flag differs from A's in some file. An A cell: its criterion's,
        // in some file; a B_k or delta_k cell: its criterion's in file k.
        DiffersRole,
        FlagStateRole, // an A or B cell: int(ks::FlagState)
        OtherRole      // a B or delta cell: which other file (0-based); -1 elsewhere
    };

    explicit CompareModel(QObject* parent = nullptr);

    // Columns of one criterion: A, then (B, delta) per other file.
    int groupWidth() const { return 1 + 2 * otherCount(); }
    // `other` picks the file for Part::B and Part::Delta (0 = the first other file).
    int columnOf(ks::Criterion c, Part p, int other = 0) const {
        return FirstCriterionColumn + groupWidth() * static_cast<int>(c) +
               (p == Part::A ? 0 : 1 + 2 * other + (p == Part::Delta ? 1 : 0));
    }
    std::optional<ks::Criterion> criterionOf(int column) const;
    Part partOf(int column) const;
    int otherOf(int column) const; // -1 for A's and the leading columns

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // `a` must outlive the model or the next setA()/clear().
    void setA(const ks::RunResults* a, const QString& name);
    // One other file, replacing any (two-file comparison).
    void setB(ks::RunResults b, const QString& name);
    // Another file beside those already compared with A. setB() and addB() judge the new file
    // by the thresholds of the last one-profile setThresholds(a, b), if that was the last call,
    // else by its file's own.
    void addB(ks::RunResults b, const QString& name);
    void removeB(int other);
    int otherCount() const { return static_cast<int>(m_others.size()); }
    // Every other file judged by `b`.
    void setThresholds(const ks::Thresholds& a, const ks::Thresholds& b);
    // Each other file by its own (`b` holds one per file, in order).
    void setThresholds(const ks::Thresholds& a, const std::vector<ks::Thresholds>& b);
    void refresh(); // A's tasks changed: the union again
    void clear();
    bool isActive() const { return m_a && !m_others.empty(); }

    void setDifferingOnly(bool on);
    bool differingOnly() const { return m_differingOnly; }

    // A against other file k, as `kernelsieve-cli diff A Bk` computes it.
    const ks::ResultsDiff& diff(int other = 0) const;
    const ks::RunResults& resultsB(int other = 0) const;
    const ks::Thresholds& thresholdsA() const { return m_ta; }
    const ks::Thresholds& thresholdsB(int other = 0) const;
    QString nameA() const { return m_nameA; }
    QString nameB(int other = 0) const;
    // "B" with one other file, "B1".."Bn" with several: the headers' and the summary's letters.
    QString letterB(int other) const;
    // Tasks (of any file) whose flags differ from A's in some file; per criterion likewise.
    int differingTasks() const { return m_differingTasks; }
    int differingAnywhere(ks::Criterion c) const { return m_differingAny[static_cast<size_t>(c)]; }
    int taskCount() const { return static_cast<int>(m_union.size()); }
    // The pair A-Bk's row of a shown row (nullptr when the task is in neither A nor Bk).
    const ks::TaskDiff* taskDiff(int row, int other = 0) const;
    int rowOf(const QString& id) const;
    // Rich text: every run, what each differs in from A, how many tasks differ.
    QString summaryText() const;

  signals:
    void comparisonChanged(); // after every refresh, re-threshold or filter change

  private:
    struct Other {
        ks::RunResults results;
        QString name;
        ks::Thresholds thresholds;
        ks::ResultsDiff diff;
    };
    // One task of the union: where it is in each pair's diff.
    struct UnionRow {
        std::vector<int> inDiff; // per other file: index into its diff.tasks, or -1
        int differing = 0;       // criteria whose flags differ from A's in some file
    };

    void apply(const ks::Thresholds& a, const std::vector<ks::Thresholds>& b);
    const ks::TaskDiff* anyDiff(const UnionRow& r) const; // the first pair that has the task
    const ks::TaskDiff* pairDiff(const UnionRow& r, int other) const;
    std::vector<int> shownRows() const;
    void rebuildUnion();
    void recountDiffering();
    void rebuildRows();
    void resetAll(); // the column count changes: a model reset
    QString cellText(const UnionRow& r, ks::Criterion c, Part p, int other) const;

    const ks::RunResults* m_a = nullptr;
    std::vector<Other> m_others;
    QString m_nameA;
    ks::Thresholds m_ta = ks::Thresholds::defaults();
    std::optional<ks::Thresholds> m_thresholdsAll; // setThresholds(a, b): every file by b
    std::vector<UnionRow> m_union;
    std::vector<int> m_rows; // indices into m_union shown
    std::array<int, ks::CriterionCount> m_differingAny{};
    int m_differingTasks = 0;
    bool m_differingOnly = true;
};
