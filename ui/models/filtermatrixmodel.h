// SPDX-License-Identifier: MIT
#pragma once
// The filter matrix: one row per task, one coloured cell per criterion (the four statistical
// filters, baseline inefficiency, redundant computation, zeros pass). The model owns the
// RunResults and the active Thresholds; flags are derived from the stored metrics and reports, so
// setThresholds() is O(tasks) and never needs a re-run. A cell whose metric lies within the
// borderline margin of its threshold reads "~" after its text and is italic: colour alone would
// not say it, and a verdict that close is one a few more seeds may flip.

#include "metatypes.h"

#include <QAbstractTableModel>
#include <QHash>

#include <array>
#include <optional>
#include <utility>
#include <vector>

class FilterMatrixModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns {
        IdColumn,
        LevelColumn,
        NameColumn,
        CategoryColumn,
        OutputRangeColumn,
        OutputStdColumn,
        OutputAxesColumn,
        InputImpactColumn,
        BaselineInefficiencyColumn,
        RedundantComputationColumn,
        ZerosPassColumn,
        AnyFlagColumn,
        ColumnCount
    };
    static constexpr int FirstCriterionColumn = OutputRangeColumn;
    static constexpr int LastCriterionColumn = ZerosPassColumn;
    static_assert(LastCriterionColumn - FirstCriterionColumn + 1 == ks::CriterionCount);

    enum class CellState { Passed, Flagged, NotRun, Error };
    Q_ENUM(CellState)

    enum Roles {
        SortRole = Qt::UserRole + 1,
        CellStateRole,  // CellState of a criterion or the any-flag column
        MetricRole,     // the raw metric behind a criterion cell (double, NaN if none): filters 5-6
                        // the best rewrite speedup and the redundant FLOP fraction
        ThresholdRole,  // the active (primary) threshold of a criterion cell
        TaskIdRole,     // any column: the task id
        AnyFlagRole,    // any column: bool
        LevelRole,      // any column: int
        CategoryRole,   // any column: QString
        BorderlineRole, // a criterion cell: bool, some metric of it is within the borderline margin
        // int, compared before SortRole: which quantity a cell shows where a column mixes them
        // (filter 5: flagged rewrite, flagged efficiency, flagged passes, rewrite, efficiency,
        // nothing, not run), so that SortRole orders like with like. 0 elsewhere.
        SortGroupRole
    };

    explicit FilterMatrixModel(QObject* parent = nullptr);

    static int columnOf(ks::Criterion c) { return OutputRangeColumn + static_cast<int>(c); }
    static std::optional<ks::Criterion> criterionOf(int column);
    static QColor stateColor(CellState s);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setResults(ks::RunResults results);
    void clear();
    // A streamed result: replaces the row with the same id, or adds one. `order` is its place in
    // the run's plan (the stream's index): a new row goes before the first streamed row with a
    // larger one, so a run whose tasks finish out of order (--devices, --workers-per-gpu) still
    // lists them in suite order, as its results file does; -1 (unknown) appends.
    void upsertTask(ks::TaskResult task, int order = -1);
    void setRunInfo(const ks::RunInfo& info);
    void setThresholds(const ks::Thresholds& thresholds);

    const ks::RunResults& results() const { return m_results; }
    const ks::Thresholds& thresholds() const { return m_thresholds; }
    const ks::TaskResult* task(int row) const;
    int rowOf(const QString& id) const;
    CellState cellState(int row, ks::Criterion c) const;
    // The text of a criterion cell without the flag and borderline marks: the metric, or for
    // filters 5-6 the dominant reason ("34.5x diag-matmul", "eff 0.03", "50%, 2 ops").
    QString cellText(int row, ks::Criterion c) const;
    bool borderline(int row, ks::Criterion c) const;
    // TaskResult::metric under the active thresholds (MetricRole): NaN when not run.
    double metric(int row, ks::Criterion c) const;
    CellState anyFlagState(int row) const;
    bool anyFlag(int row) const;
    // Tasks flagged per criterion, under the active thresholds.
    int flaggedCount(ks::Criterion c) const { return m_flagCounts[static_cast<size_t>(c)]; }
    int anyFlagCount() const { return m_anyFlagCount; }
    int errorCount() const { return m_errorCount; }
    QStringList categories() const;
    QList<int> levels() const;

  signals:
    // After every change of flags (new thresholds, results or a streamed task).
    void flagsChanged();

  private:
    void recomputeRow(int row);
    // (SortGroupRole, SortRole) of a filter 5 cell.
    std::pair<int, double> inefficiencySortKey(CellState state, const ks::TaskResult& t) const;
    void recomputeCounts();

    ks::RunResults m_results;
    ks::Thresholds m_thresholds = ks::Thresholds::defaults();
    // Bit c = criterion c flagged; cached so that data() and the proxy's filter never re-derive.
    std::vector<uint8_t> m_flags;
    std::vector<uint8_t> m_borderline; // bit c = criterion c borderline, likewise cached
    std::vector<int> m_order;          // a streamed row's place in its run's plan; -1: none
    QHash<QString, int> m_rowById;
    std::array<int, ks::CriterionCount> m_flagCounts{};
    int m_anyFlagCount = 0;
    int m_errorCount = 0;
};
