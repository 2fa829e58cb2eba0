// SPDX-License-Identifier: MIT
#pragma once
// Sorting and filtering of the filter matrix: search text, level, category, "flagged only" (by
// any criterion or by one), and ranges on the metrics (issue 14, point 4: "max |value| between
// 1e-4 and 0.01", "rewrite speedup >= 5"), all combined with AND. Sorting uses
// FilterMatrixModel::SortRole so ids sort naturally and metrics by the value shown, numerically;
// FilterMatrixModel::SortGroupRole first, where a column shows different quantities (filter 5: a
// rewrite speedup, an efficiency or a pass count).

#include <ks/core/criteria.h>

#include <QSortFilterProxyModel>

#include <array>
#include <optional>

class FilterMatrixModel;

class FilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit FilterProxyModel(QObject* parent = nullptr);

    void setSearchText(const QString& text);
    QString searchText() const { return m_search; }
    void setLevel(int level); // 0 = all levels (extras have level 0 and show with "all" only)
    int level() const { return m_level; }
    void setCategory(const QString& category); // empty = all
    QString category() const { return m_category; }
    void setFlaggedOnly(bool on);
    bool flaggedOnly() const { return m_flaggedOnly; }
    // Which flag "flagged only" asks for: one criterion, or any (std::nullopt, the default).
    void setFlaggedCriterion(std::optional<ks::Criterion> c);
    std::optional<ks::Criterion> flaggedCriterion() const { return m_flaggedCriterion; }
    // A range on criterion c's metric (TaskResult::metric, criterionInfo(c).metricLabel), bounds
    // inclusive, either one optional: a task passes when its metric lies inside. A task whose
    // metric is NaN (not run, failed, no statistics) never lies inside a range, so setting one
    // also hides the tasks that cannot be judged on it. Both bounds empty: no range.
    struct MetricRange {
        std::optional<double> min, max;
        bool active() const { return min.has_value() || max.has_value(); }
        bool contains(double v) const {
            return v == v && (!min || v >= *min) && (!max || v <= *max); // NaN is never inside
        }
        bool operator==(const MetricRange&) const = default;
    };
    void setMetricRange(ks::Criterion c, MetricRange range);
    MetricRange metricRange(ks::Criterion c) const { return m_ranges[static_cast<size_t>(c)]; }
    void clearMetricRanges();
    int activeRangeCount() const;
    // "Output Std in [0.001, 0.01]", "Baseline Inefficiency >= 5": one range as the export and
    // the range button say it.
    static QString rangeDescription(ks::Criterion c, const MetricRange& range);
    // "flagged only by Output Std, level 2, category activation, search \"gelu\"" (empty when
    // nothing is filtered): what the CSV export says it leaves out.
    QString filterDescription() const;
    bool isFiltering() const;
    // Source rows that pass the filter, in source order (for exports that must keep file order).
    QList<int> acceptedSourceRows() const;

    // "Output Range\n(2)" instead of "Output Range (2)": the criterion's name over its count,
    // so that a narrow window fits every column (the header grows a line instead).
    void setTwoLineHeaders(bool on);
    bool twoLineHeaders() const { return m_twoLineHeaders; }
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setSourceModel(QAbstractItemModel* model) override;

  protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

  private:
    void onFlagsChanged();

    QString m_search;
    int m_level = 0;
    QString m_category;
    bool m_flaggedOnly = false;
    std::optional<ks::Criterion> m_flaggedCriterion;
    std::array<MetricRange, ks::CriterionCount> m_ranges{};
    // The criteria with a range, so that filterAcceptsRow loops over those only.
    std::vector<ks::Criterion> m_activeRanges;
    bool m_unsortedRows = false; // rows inserted since the last sort
    bool m_twoLineHeaders = false;
};
