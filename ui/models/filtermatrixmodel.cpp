// SPDX-License-Identifier: MIT
#include "filtermatrixmodel.h"

#include <ks/core/analysisreports.h>

#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>
#include <set>

namespace {
constexpr uint8_t AnyBit = 0x80;

QString formatMetric(double v) {
    if (std::isnan(v)) return QStringLiteral("NaN");
    return QString::number(v, 'g', 3);
}

// Natural task order (L1-2 before L1-10, extras last) that a string sort of ids gets wrong.
qint64 taskOrderKey(const ks::TaskResult& t) {
    const qint64 level = t.level == 0 ? 99 : t.level;
    return level * 1000000 + t.number;
}

// NaN sorts after every number, so "lowest metric first" puts the most suspicious tasks on top.
double sortableMetric(double v) {
    return std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
}

QString num(double v) { return QString::number(v, 'g', 3); }

QString ruleLine(bool fired, const QString& text) {
    return fired ? QStringLiteral("<b>\u2691 %1</b>").arg(text) : text;
}

// Filter 5's tooltip: each of its three rules with the measured value and the bound, the ones
// that fire in bold, so a researcher sees why without opening the task.
QString inefficiencyDetail(const ks::InefficiencyReport& r, const ks::Thresholds& t) {
    const auto v = ks::inefficiencyVerdict(r, t);
    const bool cpu = r.device == "cpu";
    QStringList lines;
    lines << ruleLine(v.rewrite,
                      r.bestRule.empty()
                          ? QObject::tr("no equal rewrite is faster (flags at &ge; %1x)")
                                .arg(num(t.value(ks::Threshold::BaselineRewriteSpeedup)))
                          : QObject::tr("best equal rewrite: %1x faster, %2 (flags at &ge; %3x)")
                                .arg(num(r.bestSpeedup), QString::fromStdString(r.bestRule),
                                     num(t.value(ks::Threshold::BaselineRewriteSpeedup))));
    lines << ruleLine(v.efficiency,
                      QObject::tr("efficiency = floor / eager = %1 ms / %2 ms = %3 (flags below %4)")
                          .arg(num(r.floorMs), num(r.eagerMs), num(r.efficiency),
                               num(t.value(ks::Threshold::BaselineEfficiency))));
    const double maxPasses = t.value(ks::Threshold::BaselinePasses);
    const QString bound =
        r.memoryBound ? QObject::tr("memory-bound") : QObject::tr("compute-bound");
    lines << ruleLine(
        v.passes,
        r.passes <= 0 ? QObject::tr("passes over the data: not measured")
        : maxPasses > 0
            ? QObject::tr("%1 passes over the data, %2 (flags at &ge; %3 when memory-bound)")
                  .arg(num(r.passes), bound, num(maxPasses))
            // The default: fusion headroom is what level 2 asks kernel authors for.
            : QObject::tr("%1 passes over the data, %2 (information only: baseline_passes is 0)")
                  .arg(num(r.passes), bound));
    if (r.launchBound)
        lines
            << QObject::tr(
                   "launch-bound: eager %1 ms is within 2x of %2 launches x %3 ms; efficiency and "
                   "passes do not flag")
                   .arg(num(r.eagerMs))
                   .arg(r.launches)
                   .arg(num(r.launchMs));
    if (r.graphMs > 0)
        lines << QObject::tr("replayed from a CUDA graph: %1 ms; the host's dispatch is %2 ms of the eager "
                             "time (%3%): information, the rules use the eager time")
                     .arg(num(r.graphMs), num(r.dispatchMs()))
                     .arg(100.0 * r.dispatchShare(), 0, 'f', 0);
    lines << (cpu ? QObject::tr("<i>timings on the CPU</i> (the fastest of %1 calls), preset %2")
                  : QObject::tr("timings on CUDA (median of %1 calls), preset %2"))
                 .arg(r.runs)
                 .arg(QString::fromUtf8(ks::presetName(r.preset)));
    return lines.join(QStringLiteral("<br>"));
}

QString redundancyDetail(const ks::RedundancyReport& r, const ks::Thresholds& t) {
    QStringList lines;
    lines << QObject::tr("redundant FLOP fraction = %1% (%2 of %3 FLOPs); flags at &ge; %4% when anything is redundant")
                 .arg(num(100 * r.flopFraction()), num(r.redundantFlops), num(r.totalFlops),
                      num(100 * t.value(ks::Threshold::RedundantFlopFraction)));
    constexpr size_t Shown = 6; // a tooltip, not the list: the task detail view has every node
    for (size_t i = 0; i < r.nodes.size() && i < Shown; ++i) {
        const auto& n = r.nodes[i];
        lines << QObject::tr("&bull; %1 <tt>%2</tt>%3: %4")
                     .arg(QString::fromUtf8(ks::redundantKindName(n.kind)),
                          QString::fromStdString(n.op).toHtmlEscaped(),
                          n.line > 0 ? QObject::tr(" (line %1)").arg(n.line) : QString(),
                          QString::fromStdString(n.reason).toHtmlEscaped());
    }
    if (r.nodes.size() > Shown) lines << QObject::tr("&hellip; and %1 more").arg(r.nodes.size() - Shown);
    for (const auto& u : r.unused)
        lines << QObject::tr("&bull; %1 <tt>%2</tt> %3")
                     .arg(u.isParam ? QObject::tr("parameter") : QObject::tr("input"),
                          QString::fromStdString(u.name).toHtmlEscaped(), QString::fromStdString(u.reason).toHtmlEscaped());
    if (!r.hasRedundancy())
        lines << QObject::tr("%1 ops tried on %2 seeds: none redundant").arg(r.opsExamined).arg(r.seeds);
    return lines.join(QStringLiteral("<br>"));
}

// Zeros pass: both constant outputs with what they use of the tolerance, so a researcher sees
// which of them passes and by how much.
QString zerosPassDetail(const ks::TaskResult& t, const ks::Thresholds& th) {
    const double atol = th.value(ks::Threshold::ZerosPassAtol),
                 rtol = th.value(ks::Threshold::ZerosPassRtol);
    QStringList lines;
    if (t.range.nonFinite > 0 || !std::isfinite(t.range.maxAbs))
        return QObject::tr(
            "the outputs hold non-finite values: no constant output is allclose to them");
    const double zeros = ks::toleranceUsed(t.range.maxAbs, t.range.maxAbs, 0.0, atol, rtol);
    lines << ruleLine(zeros <= 1,
                      QObject::tr("all zeros: max |value| = %1 uses %2 of the tolerance")
                          .arg(num(t.range.maxAbs), num(zeros)));
    const double c = t.constantMean();
    const double mean = ks::toleranceUsed(t.range.min, t.range.max, c, atol, rtol);
    lines << (std::isnan(mean)
                  ? QObject::tr("the mean output: not known (no per-seed statistics)")
                  : ruleLine(
                        mean <= 1,
                        QObject::tr(
                            "the mean %1 everywhere: values %2 .. %3, uses %4 of the tolerance")
                            .arg(num(c), num(t.range.min), num(t.range.max), num(mean))));
    lines << QObject::tr("passes where |out &minus; ref| &le; %1 + %2 &middot; |ref|; flags when a "
                         "constant uses at most all of it (&le; 1)")
                 .arg(num(atol), num(rtol));
    return lines.join(QStringLiteral("<br>"));
}
} // namespace

FilterMatrixModel::FilterMatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

std::optional<ks::Criterion> FilterMatrixModel::criterionOf(int column) {
    if (column < FirstCriterionColumn || column > LastCriterionColumn) return std::nullopt;
    return static_cast<ks::Criterion>(column - OutputRangeColumn);
}

QColor FilterMatrixModel::stateColor(CellState s) {
    switch (s) {
    case CellState::Passed:
        return QColor(0xc8, 0xe6, 0xc9);
    case CellState::Flagged:
        return QColor(0xef, 0x9a, 0x9a);
    case CellState::NotRun:
        return QColor(0xe6, 0xe6, 0xe6);
    case CellState::Error:
        return QColor(0xff, 0xcc, 0x80);
    }
    return {};
}

int FilterMatrixModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_results.tasks.size());
}

int FilterMatrixModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

const ks::TaskResult* FilterMatrixModel::task(int row) const {
    if (row < 0 || row >= rowCount()) return nullptr;
    return &m_results.tasks[static_cast<size_t>(row)];
}

int FilterMatrixModel::rowOf(const QString& id) const {
    return m_rowById.value(id, -1);
}

FilterMatrixModel::CellState FilterMatrixModel::cellState(int row, ks::Criterion c) const {
    const auto* t = task(row);
    if (!t) return CellState::NotRun;
    if (t->criterionRun(c))
        return (m_flags[static_cast<size_t>(row)] >> static_cast<int>(c)) & 1 ? CellState::Flagged
                                                                              : CellState::Passed;
    return t->status == ks::TaskStatus::Error || !t->criterionError(c).empty() ? CellState::Error
                                                                                : CellState::NotRun;
}

QString FilterMatrixModel::cellText(int row, ks::Criterion c) const {
    const auto* t = task(row);
    if (!t || !t->criterionRun(c)) return {};
    switch (c) {
    case ks::Criterion::BaselineInefficiency:
        return QString::fromStdString(ks::inefficiencySummary(*t->inefficiency, m_thresholds));
    case ks::Criterion::RedundantComputation:
        return QString::fromStdString(ks::redundancySummary(*t->redundancy));
    default:
        return formatMetric(t->metric(c, m_thresholds));
    }
}

bool FilterMatrixModel::borderline(int row, ks::Criterion c) const {
    return row >= 0 && row < rowCount() &&
           ((m_borderline[static_cast<size_t>(row)] >> static_cast<int>(c)) & 1);
}

double FilterMatrixModel::metric(int row, ks::Criterion c) const {
    const auto* t = task(row);
    return t ? t->metric(c, m_thresholds) : ks::NaN;
}

FilterMatrixModel::CellState FilterMatrixModel::anyFlagState(int row) const {
    const auto* t = task(row);
    if (!t) return CellState::NotRun;
    if (anyFlag(row)) return CellState::Flagged;
    if (t->status == ks::TaskStatus::Error) return CellState::Error;
    for (const auto& c : ks::criteria())
        if (t->criterionRun(c.criterion)) return CellState::Passed;
    return CellState::NotRun;
}

bool FilterMatrixModel::anyFlag(int row) const {
    return row >= 0 && row < rowCount() && (m_flags[static_cast<size_t>(row)] & AnyBit);
}

std::pair<int, double> FilterMatrixModel::inefficiencySortKey(CellState state,
                                                              const ks::TaskResult& t) const {
    // Filter 5's cell shows one of three quantities (ks::inefficiencySummary): sort by the one
    // shown, like with like, most suspicious first as in the other columns. Sorting by the best
    // rewrite speedup alone left "4.3 passes, 10.6 passes, 2.95 passes" in file order (issue 14).
    constexpr double Inf = std::numeric_limits<double>::infinity();
    if (state == CellState::NotRun || state == CellState::Error) return {6, Inf};
    const auto& r = *t.inefficiency;
    const auto v = ks::inefficiencyVerdict(r, m_thresholds);
    if (v.rewrite) return {0, -sortableMetric(r.bestSpeedup)};
    if (v.efficiency) return {1, sortableMetric(r.efficiency)};
    if (v.passes) return {2, -sortableMetric(r.passes)};
    if (!r.bestRule.empty()) return {3, -sortableMetric(r.bestSpeedup)};
    if (r.eagerMs > 0) return {4, sortableMetric(r.efficiency)};
    return {5, 0.0};
}

QVariant FilterMatrixModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const auto& t = m_results.tasks[static_cast<size_t>(row)];
    const int column = index.column();

    switch (role) {
    case TaskIdRole:
        return QString::fromStdString(t.id);
    case AnyFlagRole:
        return anyFlag(row);
    case LevelRole:
        return t.level;
    case CategoryRole:
        return QString::fromStdString(t.category);
    default:
        break;
    }

    if (const auto c = criterionOf(column)) {
        const CellState state = cellState(row, *c);
        const double metric = t.metric(*c, m_thresholds);
        const double threshold = m_thresholds.value(*c);
        const auto& info = ks::criterionInfo(*c);
        const bool near = borderline(row, *c);
        const QString mark = near ? QStringLiteral(" ~") : QString();
        switch (role) {
        case Qt::DisplayRole:
            switch (state) {
            case CellState::Flagged:
                return QStringLiteral("\u2691 ") + cellText(row, *c) + mark;
            case CellState::Passed:
                return cellText(row, *c) + mark;
            case CellState::NotRun:
                return QStringLiteral("\u2014");
            case CellState::Error:
                return tr("error");
            }
            return {};
        case Qt::BackgroundRole:
            return stateColor(state);
        case Qt::ForegroundRole:
            return QColor(Qt::black);
        case Qt::FontRole:
            if (near) {
                QFont f;
                f.setItalic(true);
                return f;
            }
            return {};
        case BorderlineRole:
            return near;
        case Qt::TextAlignmentRole:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::ToolTipRole: {
            QString status;
            switch (state) {
            case CellState::Flagged:
                status = tr("<b>flagged</b>");
                break;
            case CellState::Passed:
                status = tr("passed");
                break;
            case CellState::NotRun:
                return tr("%1: not run").arg(QString::fromUtf8(info.label));
            case CellState::Error:
                if (const std::string e = t.criterionError(*c); !e.empty())
                    return tr("%1: the analysis failed: %2")
                        .arg(QString::fromUtf8(info.label), QString::fromStdString(e));
                return tr("%1: the task failed: %2")
                    .arg(QString::fromUtf8(info.label), QString::fromStdString(t.error));
            }
            QString nearText;
            if (near) {
                QStringList lines;
                for (const auto& hit : t.borderline(m_thresholds))
                    if (ks::thresholdInfo(hit.threshold).criterion == *c)
                        lines << QString::fromStdString(
                                     ks::borderlineText(hit, m_thresholds.borderlineMargin))
                                     .toHtmlEscaped();
                nearText =
                    QStringLiteral("<p><i>%1</i></p>").arg(lines.join(QStringLiteral("<br>")));
            }
            if (!ks::isStatistical(*c))
                return tr("<p><b>%1</b> for %2: %3</p><p>%4</p><p>flagged iff %5</p>%7<p>%6</p>")
                    .arg(QString::fromUtf8(info.label), QString::fromStdString(t.id), status,
                         *c == ks::Criterion::BaselineInefficiency
                             ? inefficiencyDetail(*t.inefficiency, m_thresholds)
                         : *c == ks::Criterion::RedundantComputation
                             ? redundancyDetail(*t.redundancy, m_thresholds)
                             : zerosPassDetail(t, m_thresholds),
                         QString::fromStdString(ks::criterionRuleText(*c, m_thresholds))
                             .toHtmlEscaped(),
                         QString::fromUtf8(info.description).toHtmlEscaped(), nearText);
            return tr("<p><b>%1</b> for %2: %3</p><p>%4 = %5<br>threshold = %6 (flagged iff %4 "
                      "&lt; threshold)</p>%8<p>%7</p>")
                .arg(QString::fromUtf8(info.label), QString::fromStdString(t.id), status,
                     QString::fromUtf8(info.metricLabel), QString::number(metric, 'g', 6),
                     QString::number(threshold, 'g', 6),
                     QString::fromUtf8(info.description).toHtmlEscaped(), nearText);
        }
        case SortGroupRole:
            if (*c != ks::Criterion::BaselineInefficiency) return 0;
            return inefficiencySortKey(state, t).first;
        case SortRole:
            if (*c == ks::Criterion::BaselineInefficiency)
                return inefficiencySortKey(state, t).second;
            if (state == CellState::NotRun || state == CellState::Error)
                return std::numeric_limits<double>::infinity();
            // Filters 5-6 flag at or above a bound, so "most suspicious first" is flagged tasks
            // first, then the largest metric (rewrite speedup, redundant FLOP share). Zeros pass
            // flags at or below 1 of the tolerance: the smallest first, like filters 1-4.
            if (!ks::isStatistical(*c) && *c != ks::Criterion::ZerosPass)
                return (state == CellState::Flagged ? -1e12 : 0.0) - sortableMetric(metric);
            return sortableMetric(metric);
        case CellStateRole:
            return QVariant::fromValue(state);
        case MetricRole:
            return metric;
        case ThresholdRole:
            return threshold;
        default:
            return {};
        }
    }

    switch (column) {
    case IdColumn:
        switch (role) {
        case Qt::DisplayRole:
            return QString::fromStdString(t.id);
        case SortRole:
            return taskOrderKey(t);
        case Qt::ToolTipRole:
            return QString::fromStdString(t.description).toHtmlEscaped();
        case Qt::FontRole:
            if (t.status == ks::TaskStatus::Error) {
                QFont f;
                f.setItalic(true);
                return f;
            }
            return {};
        }
        return {};
    case LevelColumn:
        if (role == Qt::DisplayRole || role == SortRole) return t.level;
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignCenter);
        return {};
    case NameColumn:
        if (role == Qt::DisplayRole || role == SortRole) return QString::fromStdString(t.name);
        if (role == Qt::ToolTipRole) return QString::fromStdString(t.description).toHtmlEscaped();
        return {};
    case CategoryColumn:
        if (role == Qt::DisplayRole || role == SortRole) return QString::fromStdString(t.category);
        return {};
    case AnyFlagColumn: {
        const CellState state = anyFlagState(row);
        switch (role) {
        case Qt::DisplayRole:
            switch (state) {
            case CellState::Flagged:
                return tr("flagged");
            case CellState::Passed:
                return tr("clean");
            case CellState::NotRun:
                return QStringLiteral("\u2014");
            case CellState::Error:
                return tr("error");
            }
            return {};
        case Qt::BackgroundRole:
            return stateColor(state);
        case Qt::ForegroundRole:
            return QColor(Qt::black);
        case Qt::TextAlignmentRole:
            return int(Qt::AlignCenter);
        case SortRole:
            return static_cast<int>(state == CellState::Flagged  ? 0
                                    : state == CellState::Passed ? 1
                                    : state == CellState::Error  ? 2
                                                                 : 3);
        case CellStateRole:
            return QVariant::fromValue(state);
        case Qt::ToolTipRole:
            if (state == CellState::Error) return QString::fromStdString(t.error).toHtmlEscaped();
            if (state == CellState::Flagged) {
                QStringList which;
                for (const auto& c : ks::criteria())
                    if (cellState(row, c.criterion) == CellState::Flagged)
                        which << QString::fromUtf8(c.label);
                return tr("flagged by %1").arg(which.join(QStringLiteral(", ")));
            }
            return {};
        }
        return {};
    }
    }
    return {};
}

QVariant FilterMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (const auto c = criterionOf(section)) {
        const auto& info = ks::criterionInfo(*c);
        if (role == Qt::DisplayRole)
            // The count in the header is the per-criterion tally researchers watch while tuning.
            return tr("%1 (%2)").arg(QString::fromUtf8(info.label)).arg(flaggedCount(*c));
        if (role == Qt::ToolTipRole)
            return tr("<b>%1</b>: %2<br>flagged iff %3<br>%4 task(s) flagged")
                .arg(QString::fromUtf8(info.label),
                     QString::fromUtf8(info.description).toHtmlEscaped(),
                     QString::fromStdString(ks::criterionRuleText(*c, m_thresholds)).toHtmlEscaped())
                .arg(flaggedCount(*c));
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case IdColumn:
        return tr("ID");
    case LevelColumn:
        return tr("Level");
    case NameColumn:
        return tr("Name");
    case CategoryColumn:
        return tr("Category");
    case AnyFlagColumn:
        return tr("Any Flag (%1)").arg(m_anyFlagCount);
    }
    return {};
}

void FilterMatrixModel::setResults(ks::RunResults results) {
    beginResetModel();
    m_results = std::move(results);
    m_flags.assign(m_results.tasks.size(), 0);
    m_borderline.assign(m_results.tasks.size(), 0);
    m_order.assign(m_results.tasks.size(), -1);
    m_rowById.clear();
    for (int row = 0; row < rowCount(); ++row) {
        m_rowById.insert(QString::fromStdString(m_results.tasks[static_cast<size_t>(row)].id), row);
        recomputeRow(row);
    }
    recomputeCounts();
    endResetModel();
    emit flagsChanged();
}

void FilterMatrixModel::clear() {
    ks::RunResults empty;
    empty.thresholds = m_thresholds;
    setResults(std::move(empty));
}

void FilterMatrixModel::upsertTask(ks::TaskResult task, int order) {
    const QString id = QString::fromStdString(task.id);
    const int existing = rowOf(id);
    if (existing >= 0) {
        m_results.tasks[static_cast<size_t>(existing)] = std::move(task);
        recomputeRow(existing);
        recomputeCounts();
        emit dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
    } else {
        int row = rowCount();
        if (order >= 0)
            for (int r = 0; r < rowCount(); ++r)
                if (m_order[static_cast<size_t>(r)] > order) {
                    row = r;
                    break;
                }
        const auto at = static_cast<std::ptrdiff_t>(row);
        beginInsertRows({}, row, row);
        m_results.tasks.insert(m_results.tasks.begin() + at, std::move(task));
        m_flags.insert(m_flags.begin() + at, 0);
        m_borderline.insert(m_borderline.begin() + at, 0);
        m_order.insert(m_order.begin() + at, order);
        for (int r = row; r < rowCount(); ++r)
            m_rowById.insert(QString::fromStdString(m_results.tasks[static_cast<size_t>(r)].id), r);
        recomputeRow(row);
        recomputeCounts();
        endInsertRows();
    }
    emit headerDataChanged(Qt::Horizontal, FirstCriterionColumn, AnyFlagColumn);
    emit flagsChanged();
}

void FilterMatrixModel::setRunInfo(const ks::RunInfo& info) {
    m_results.run = info;
}

void FilterMatrixModel::setThresholds(const ks::Thresholds& thresholds) {
    m_thresholds = thresholds;
    for (int row = 0; row < rowCount(); ++row)
        recomputeRow(row);
    recomputeCounts();
    if (rowCount() > 0)
        // Only the flag columns depend on thresholds; id/name/category views need no repaint.
        emit dataChanged(index(0, FirstCriterionColumn), index(rowCount() - 1, AnyFlagColumn));
    emit headerDataChanged(Qt::Horizontal, FirstCriterionColumn, AnyFlagColumn);
    emit flagsChanged();
}

void FilterMatrixModel::recomputeRow(int row) {
    const auto& t = m_results.tasks[static_cast<size_t>(row)];
    uint8_t bits = 0;
    for (const auto& c : ks::criteria())
        if (t.flagged(c.criterion, m_thresholds))
            bits |= uint8_t(1u << static_cast<int>(c.criterion));
    if (bits) bits |= AnyBit;
    m_flags[static_cast<size_t>(row)] = bits;
    uint8_t near = 0;
    for (const auto& hit : t.borderline(m_thresholds))
        near |= uint8_t(1u << static_cast<int>(ks::thresholdInfo(hit.threshold).criterion));
    m_borderline[static_cast<size_t>(row)] = near;
}

void FilterMatrixModel::recomputeCounts() {
    m_flagCounts.fill(0);
    m_anyFlagCount = 0;
    m_errorCount = 0;
    for (size_t row = 0; row < m_flags.size(); ++row) {
        const uint8_t bits = m_flags[row];
        for (int c = 0; c < ks::CriterionCount; ++c)
            if ((bits >> c) & 1) ++m_flagCounts[static_cast<size_t>(c)];
        if (bits & AnyBit) ++m_anyFlagCount;
        if (m_results.tasks[row].status == ks::TaskStatus::Error) ++m_errorCount;
    }
}

QStringList FilterMatrixModel::categories() const {
    std::set<QString> set;
    for (const auto& t : m_results.tasks)
        if (!t.category.empty()) set.insert(QString::fromStdString(t.category));
    return QStringList(set.begin(), set.end());
}

QList<int> FilterMatrixModel::levels() const {
    std::set<int> set;
    for (const auto& t : m_results.tasks)
        set.insert(t.level);
    return QList<int>(set.begin(), set.end());
}
