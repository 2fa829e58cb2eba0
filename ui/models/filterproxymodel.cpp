// SPDX-License-Identifier: MIT
#include "filterproxymodel.h"
#include "filtermatrixmodel.h"

FilterProxyModel::FilterProxyModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(FilterMatrixModel::SortRole);
    // Not dynamic: a re-threshold changes every row's flag cells, and per-row re-filtering then
    // emits one insert/remove per flipped row. onFlagsChanged() re-filters once instead, and
    // only when the flags matter to the filter or the sort order.
    setDynamicSortFilter(false);
}

void FilterProxyModel::setSourceModel(QAbstractItemModel* model) {
    if (auto* old = qobject_cast<FilterMatrixModel*>(sourceModel()))
        disconnect(old, nullptr, this, nullptr);
    QSortFilterProxyModel::setSourceModel(model);
    if (auto* m = qobject_cast<FilterMatrixModel*>(model)) {
        connect(m, &FilterMatrixModel::flagsChanged, this, &FilterProxyModel::onFlagsChanged);
        // Without dynamic sorting, streamed rows would be appended unsorted; they are sorted in
        // with the flagsChanged that follows every insertion.
        connect(m, &QAbstractItemModel::rowsInserted, this, [this] { m_unsortedRows = true; });
    }
}

void FilterProxyModel::setTwoLineHeaders(bool on) {
    if (on == m_twoLineHeaders) return;
    m_twoLineHeaders = on;
    if (columnCount() > 0) emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

QVariant FilterProxyModel::headerData(int section, Qt::Orientation orientation, int role) const {
    QVariant v = QSortFilterProxyModel::headerData(section, orientation, role);
    if (!m_twoLineHeaders || role != Qt::DisplayRole || orientation != Qt::Horizontal) return v;
    QString text = v.toString();
    const qsizetype count = text.lastIndexOf(QStringLiteral(" ("));
    if (count > 0) text[count] = QLatin1Char('\n');
    return text;
}

void FilterProxyModel::onFlagsChanged() {
    const bool sortedByFlags = sortColumn() >= FilterMatrixModel::OutputRangeColumn &&
                               sortColumn() <= FilterMatrixModel::AnyFlagColumn;
    if (sortedByFlags || (m_unsortedRows && sortColumn() >= 0))
        invalidate(); // re-sort and re-filter in one layout change
    else if (m_flaggedOnly || !m_activeRanges.empty())
        // Ranges too: the zeros pass metric (tolerance used) moves with its tolerances, and a
        // streamed task brings its metrics.
        invalidateRowsFilter();
    m_unsortedRows = false;
}

void FilterProxyModel::setSearchText(const QString& text) {
    if (text == m_search) return;
    m_search = text;
    invalidateRowsFilter();
}

void FilterProxyModel::setLevel(int level) {
    if (level == m_level) return;
    m_level = level;
    invalidateRowsFilter();
}

void FilterProxyModel::setCategory(const QString& category) {
    if (category == m_category) return;
    m_category = category;
    invalidateRowsFilter();
}

void FilterProxyModel::setFlaggedOnly(bool on) {
    if (on == m_flaggedOnly) return;
    m_flaggedOnly = on;
    invalidateRowsFilter();
}

void FilterProxyModel::setFlaggedCriterion(std::optional<ks::Criterion> c) {
    if (c == m_flaggedCriterion) return;
    m_flaggedCriterion = c;
    if (m_flaggedOnly) invalidateRowsFilter();
}

void FilterProxyModel::setMetricRange(ks::Criterion c, MetricRange range) {
    auto& slot = m_ranges[static_cast<size_t>(c)];
    if (slot == range) return;
    slot = range;
    m_activeRanges.clear();
    for (const auto& info : ks::criteria())
        if (m_ranges[static_cast<size_t>(info.criterion)].active())
            m_activeRanges.push_back(info.criterion);
    invalidateRowsFilter();
}

void FilterProxyModel::clearMetricRanges() {
    if (m_activeRanges.empty()) return;
    m_ranges.fill({});
    m_activeRanges.clear();
    invalidateRowsFilter();
}

int FilterProxyModel::activeRangeCount() const {
    return static_cast<int>(m_activeRanges.size());
}

QString FilterProxyModel::rangeDescription(ks::Criterion c, const MetricRange& r) {
    const QString label = QString::fromUtf8(ks::criterionInfo(c).label);
    auto n = [](double v) { return QString::number(v, 'g', 6); };
    if (r.min && r.max) return tr("%1 in [%2, %3]").arg(label, n(*r.min), n(*r.max));
    if (r.min) return tr("%1 \u2265 %2").arg(label, n(*r.min));
    if (r.max) return tr("%1 \u2264 %2").arg(label, n(*r.max));
    return {};
}

QString FilterProxyModel::filterDescription() const {
    QStringList parts;
    if (m_flaggedOnly)
        parts << (m_flaggedCriterion
                      ? tr("flagged only by %1")
                            .arg(QString::fromUtf8(ks::criterionInfo(*m_flaggedCriterion).label))
                      : tr("flagged only"));
    if (m_level != 0) parts << tr("level %1").arg(m_level);
    if (!m_category.isEmpty()) parts << tr("category %1").arg(m_category);
    if (!m_search.isEmpty()) parts << tr("search \"%1\"").arg(m_search);
    for (const ks::Criterion c : m_activeRanges)
        parts << rangeDescription(c, m_ranges[static_cast<size_t>(c)]);
    return parts.join(QStringLiteral(", "));
}

bool FilterProxyModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    // Only filter 5's column mixes quantities; the others skip the extra look-ups per comparison.
    if (left.column() != FilterMatrixModel::BaselineInefficiencyColumn)
        return QSortFilterProxyModel::lessThan(left, right);
    const int gl = left.data(FilterMatrixModel::SortGroupRole).toInt();
    const int gr = right.data(FilterMatrixModel::SortGroupRole).toInt();
    if (gl != gr) return gl < gr;
    return QSortFilterProxyModel::lessThan(left, right);
}

bool FilterProxyModel::isFiltering() const {
    return !m_search.isEmpty() || m_level != 0 || !m_category.isEmpty() || m_flaggedOnly ||
           !m_activeRanges.empty();
}

QList<int> FilterProxyModel::acceptedSourceRows() const {
    QList<int> rows;
    if (!sourceModel()) return rows;
    for (int row = 0; row < sourceModel()->rowCount(); ++row)
        if (filterAcceptsRow(row, {})) rows << row;
    return rows;
}

bool FilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const auto* model = qobject_cast<const FilterMatrixModel*>(sourceModel());
    if (!model || sourceParent.isValid()) return true;
    const auto* task = model->task(sourceRow);
    if (!task) return false;
    if (m_flaggedOnly) {
        if (m_flaggedCriterion ? model->cellState(sourceRow, *m_flaggedCriterion) !=
                                     FilterMatrixModel::CellState::Flagged
                               : !model->anyFlag(sourceRow))
            return false;
    }
    for (const ks::Criterion c : m_activeRanges)
        if (!m_ranges[static_cast<size_t>(c)].contains(model->metric(sourceRow, c))) return false;
    if (m_level != 0 && task->level != m_level) return false;
    if (!m_category.isEmpty() && QString::fromStdString(task->category) != m_category) return false;
    if (!m_search.isEmpty()) {
        const auto cs = Qt::CaseInsensitive;
        if (!QString::fromStdString(task->id).contains(m_search, cs) &&
            !QString::fromStdString(task->name).contains(m_search, cs) &&
            !QString::fromStdString(task->category).contains(m_search, cs))
            return false;
    }
    return true;
}
