// SPDX-License-Identifier: MIT
#include "comparemodel.h"
#include "filtermatrixmodel.h"

#include <QColor>
#include <QFont>

#include <cmath>
#include <limits>
#include <unordered_map>

namespace {
constexpr double Inf = std::numeric_limits<double>::infinity();

QString num(double v) {
    return std::isnan(v) ? QString() : QString::number(v, 'g', 3);
}

// The quantity a cell's metric and delta are of: the criterion's, or the filter-5 rule that
// decided this pair (ks::CriterionDiff::metricName).
QString metricLabelOf(const ks::CriterionInfo& info, const ks::CriterionDiff& cd) {
    return cd.metricName.empty() ? QString::fromUtf8(info.metricLabel) : QString::fromStdString(cd.metricName);
}

FilterMatrixModel::CellState cellState(ks::FlagState s) {
    switch (s) {
    case ks::FlagState::Flagged:
        return FilterMatrixModel::CellState::Flagged;
    case ks::FlagState::Passed:
        return FilterMatrixModel::CellState::Passed;
    case ks::FlagState::Error:
        return FilterMatrixModel::CellState::Error;
    default:
        return FilterMatrixModel::CellState::NotRun;
    }
}

// A differing delta cell: the colour that draws the eye down the column.
const QColor DiffersColor(0xff, 0xf5, 0x9d);

const ks::ResultsDiff EmptyDiff;
const ks::RunResults EmptyResults;
const ks::Thresholds DefaultThresholds = ks::Thresholds::defaults();
} // namespace

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

std::optional<ks::Criterion> CompareModel::criterionOf(int column) const {
    if (column < FirstCriterionColumn || column >= columnCount()) return std::nullopt;
    return static_cast<ks::Criterion>((column - FirstCriterionColumn) / groupWidth());
}

CompareModel::Part CompareModel::partOf(int column) const {
    const int r = (column - FirstCriterionColumn) % groupWidth();
    if (r == 0) return Part::A;
    return (r - 1) % 2 == 0 ? Part::B : Part::Delta;
}

int CompareModel::otherOf(int column) const {
    if (!criterionOf(column)) return -1;
    const int r = (column - FirstCriterionColumn) % groupWidth();
    return r == 0 ? -1 : (r - 1) / 2;
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : FirstCriterionColumn + groupWidth() * ks::CriterionCount;
}

const ks::ResultsDiff& CompareModel::diff(int other) const {
    return other >= 0 && other < otherCount() ? m_others[static_cast<size_t>(other)].diff
                                              : EmptyDiff;
}

const ks::RunResults& CompareModel::resultsB(int other) const {
    return other >= 0 && other < otherCount() ? m_others[static_cast<size_t>(other)].results
                                              : EmptyResults;
}

const ks::Thresholds& CompareModel::thresholdsB(int other) const {
    return other >= 0 && other < otherCount() ? m_others[static_cast<size_t>(other)].thresholds
                                              : DefaultThresholds;
}

QString CompareModel::nameB(int other) const {
    return other >= 0 && other < otherCount() ? m_others[static_cast<size_t>(other)].name
                                              : QString();
}

QString CompareModel::letterB(int other) const {
    return otherCount() == 1 ? QStringLiteral("B") : QStringLiteral("B%1").arg(other + 1);
}

const ks::TaskDiff* CompareModel::pairDiff(const UnionRow& r, int other) const {
    if (other < 0 || other >= otherCount()) return nullptr;
    const int i = r.inDiff[static_cast<size_t>(other)];
    return i < 0 ? nullptr
                 : &m_others[static_cast<size_t>(other)].diff.tasks[static_cast<size_t>(i)];
}

const ks::TaskDiff* CompareModel::anyDiff(const UnionRow& r) const {
    for (int k = 0; k < otherCount(); ++k)
        if (const auto* t = pairDiff(r, k)) return t;
    return nullptr;
}

const ks::TaskDiff* CompareModel::taskDiff(int row, int other) const {
    if (row < 0 || static_cast<size_t>(row) >= m_rows.size()) return nullptr;
    return pairDiff(m_union[static_cast<size_t>(m_rows[static_cast<size_t>(row)])], other);
}

int CompareModel::rowOf(const QString& id) const {
    const std::string key = id.toStdString();
    for (size_t r = 0; r < m_rows.size(); ++r)
        if (anyDiff(m_union[static_cast<size_t>(m_rows[r])])->id == key) return static_cast<int>(r);
    return -1;
}

QString CompareModel::cellText(const UnionRow& r, ks::Criterion c, Part p, int other) const {
    if (p == Part::Delta) {
        const auto* t = pairDiff(r, other);
        const double d = t ? t->criteria[static_cast<size_t>(c)].delta() : ks::NaN;
        return std::isnan(d) ? QString() : (d > 0 ? QStringLiteral("+") : QString()) + num(d);
    }
    const bool a = p == Part::A;
    const ks::TaskDiff* t = a ? anyDiff(r) : pairDiff(r, other);
    const ks::FlagState s =
        !t ? ks::FlagState::Missing
           : (a ? t->criteria[static_cast<size_t>(c)].a : t->criteria[static_cast<size_t>(c)].b);
    switch (s) {
    case ks::FlagState::Missing:
        return {};
    case ks::FlagState::NotRun:
        return QStringLiteral("\u2014");
    case ks::FlagState::Error:
        return tr("error");
    default:
        break;
    }
    const Other* o = a ? nullptr : &m_others[static_cast<size_t>(other)];
    const ks::TaskResult* task = a ? &m_a->tasks[static_cast<size_t>(t->indexA)]
                                   : &o->results.tasks[static_cast<size_t>(t->indexB)];
    const auto& cd = t->criteria[static_cast<size_t>(c)];
    // " ~": that side's verdict is borderline, as the filter matrix marks it.
    const QString text = QString::fromStdString(ks::flagCellText(task, c, a ? m_ta : o->thresholds)) +
                         ((a ? cd.borderlineA : cd.borderlineB) ? QStringLiteral(" ~") : QString());
    return s == ks::FlagState::Flagged ? QStringLiteral("\u2691 ") + text : text;
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const UnionRow& r = m_union[static_cast<size_t>(m_rows[static_cast<size_t>(index.row())])];
    const ks::TaskDiff& first = *anyDiff(r);
    const int column = index.column();
    if (role == TaskIdRole) return QString::fromStdString(first.id);

    if (const auto c = criterionOf(column)) {
        const auto ci = static_cast<size_t>(*c);
        const Part p = partOf(column);
        const int other = otherOf(column);
        if (role == OtherRole) return other;
        // A's side of the criterion is the same in every pair (A judged by A's thresholds).
        const ks::TaskDiff* pair = p == Part::A ? &first : pairDiff(r, other);
        const bool aPresent = first.inA();
        const ks::CriterionDiff none{};
        const ks::CriterionDiff& cd = pair ? pair->criteria[ci] : none;
        bool differs = false;
        if (p == Part::A) {
            for (int k = 0; k < otherCount() && !differs; ++k)
                if (const auto* t = pairDiff(r, k)) differs = t->criteria[ci].differs();
        } else {
            differs = cd.differs();
        }
        const ks::FlagState state =
            p == Part::A ? (aPresent ? first.criteria[ci].a : ks::FlagState::Missing) : cd.b;
        const bool near = p == Part::A ? aPresent && first.criteria[ci].borderlineA
                                       : p == Part::B && cd.borderlineB;
        switch (role) {
        case Qt::DisplayRole:
            return cellText(r, *c, p, other);
        case DiffersRole:
            return differs;
        case FlagStateRole:
            return p == Part::Delta ? QVariant() : QVariant(int(state));
        case Qt::TextAlignmentRole:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::BackgroundRole:
            if (p == Part::Delta) return differs ? QVariant(DiffersColor) : QVariant();
            if (state == ks::FlagState::Missing) return {};
            return FilterMatrixModel::stateColor(cellState(state));
        case Qt::ForegroundRole:
            return QColor(Qt::black);
        case Qt::FontRole:
            if (differs || near) {
                QFont f;
                f.setBold(differs);
                f.setItalic(near);
                return f;
            }
            return {};
        case SortRole: {
            if (p == Part::Delta) {
                const double d = cd.delta();
                return std::isnan(d) ? Inf : d;
            }
            const double m =
                p == Part::A ? (aPresent ? first.criteria[ci].metricA : ks::NaN) : cd.metricB;
            return std::isnan(m) ? Inf : m;
        }
        case Qt::ToolTipRole: {
            const auto& info = ks::criterionInfo(*c);
            const QString id = QString::fromStdString(first.id);
            if (p == Part::Delta)
                return tr("<b>%1</b> of %2: %3 \u2212 A of %4 = %5%6")
                    .arg(QString::fromUtf8(info.label), id, letterB(other),
                         metricLabelOf(info, cd).toHtmlEscaped(), num(cd.delta()),
                         differs ? tr("<br><b>the flags differ</b>") : QString());
            const bool a = p == Part::A;
            return tr("<b>%1</b> of %2 in %3: %4<br>%5 = %6<br>flagged iff %7%8")
                .arg(
                    QString::fromUtf8(info.label), id, (a ? m_nameA : nameB(other)).toHtmlEscaped(),
                    QString::fromUtf8(ks::flagStateName(state)),
                    metricLabelOf(info, cd).toHtmlEscaped(),
                    QString::number(a ? first.criteria[ci].metricA : cd.metricB, 'g', 6),
                    QString::fromStdString(ks::criterionRuleText(*c, a ? m_ta : thresholdsB(other)))
                        .toHtmlEscaped(),
                    near ? tr("<br><i>borderline: within the borderline margin of a threshold or of "
                              "filter 5's launch-bound limit, or resting on the host's dispatch (the "
                              "filter matrix's tooltip names it)</i>")
                         : QString());
        }
        default:
            return {};
        }
    }

    switch (column) {
    case IdColumn:
        if (role == Qt::DisplayRole) return QString::fromStdString(first.id);
        if (role == SortRole)
            return qint64(first.level == 0 ? 99 : first.level) * 1000000 + first.number;
        break;
    case NameColumn:
        if (role == Qt::DisplayRole || role == SortRole) return QString::fromStdString(first.name);
        break;
    case PresenceColumn: {
        int inOthers = 0;
        QStringList where;
        if (first.inA()) where << QStringLiteral("A");
        for (int k = 0; k < otherCount(); ++k)
            if (const auto* t = pairDiff(r, k); t && t->inB()) {
                ++inOthers;
                where << letterB(k);
            }
        const bool all = first.inA() && inOthers == otherCount();
        if (role == Qt::DisplayRole) {
            if (otherCount() == 1)
                return all ? tr("both") : first.inA() ? tr("only in A") : tr("only in B");
            return all ? tr("all") : where.join(QStringLiteral(", "));
        }
        if (role == SortRole) return all ? 0 : first.inA() ? 1 : 2;
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignCenter);
        break;
    }
    case DiffersColumn: {
        const int n = r.differing;
        if (role == Qt::DisplayRole) return n ? tr("%n flag(s)", nullptr, n) : QString();
        if (role == SortRole) return -n; // ascending: the most differing first
        if (role == Qt::BackgroundRole && n) return DiffersColor;
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignCenter);
        if (role == Qt::ToolTipRole && n && otherCount() > 1) {
            QStringList lines;
            for (int k = 0; k < otherCount(); ++k)
                if (const auto* t = pairDiff(r, k); t && t->differs())
                    lines << tr("%1 (%2): %n flag(s) differ from A", nullptr, t->differingCount())
                                 .arg(letterB(k), nameB(k).toHtmlEscaped());
            return lines.join(QStringLiteral("<br>"));
        }
        break;
    }
    default:
        break;
    }
    if (role == DiffersRole) return r.differing > 0;
    return {};
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
    if (const auto c = criterionOf(section)) {
        const auto& info = ks::criterionInfo(*c);
        const auto i = static_cast<size_t>(*c);
        const Part p = partOf(section);
        const int other = otherOf(section);
        const ks::ResultsDiff& d = diff(std::max(0, other));
        if (role == Qt::DisplayRole) {
            switch (p) {
            case Part::A:
                return tr("%1 A (%2)").arg(QString::fromUtf8(info.label)).arg(d.flaggedA[i]);
            case Part::B:
                return tr("%1 (%2)").arg(letterB(other)).arg(d.flaggedB[i]);
            case Part::Delta:
                return otherCount() == 1
                           ? tr("\u0394 (%1 differ)").arg(d.differing[i])
                           : tr("\u0394%1 (%2 differ)").arg(other + 1).arg(d.differing[i]);
            }
        }
        if (role == Qt::ToolTipRole) {
            if (p == Part::A)
                return tr("<b>%1</b>: flagged in A (%2): %3; the flags differ from A's in some "
                          "file on %4 task(s).")
                    .arg(QString::fromUtf8(info.label), m_nameA.toHtmlEscaped())
                    .arg(d.flaggedA[i])
                    .arg(differingAnywhere(*c));
            return tr("<b>%1</b>: flagged in A (%2): %3; in %4 (%5): %6; the flags differ on %7 "
                      "task(s). \u0394 is %4 \u2212 A of %8.")
                .arg(QString::fromUtf8(info.label), m_nameA.toHtmlEscaped())
                .arg(d.flaggedA[i])
                .arg(letterB(other), nameB(other).toHtmlEscaped())
                .arg(d.flaggedB[i])
                .arg(d.differing[i])
                .arg(QString::fromUtf8(info.metricLabel).toHtmlEscaped());
        }
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case IdColumn:
        return tr("ID");
    case NameColumn:
        return tr("Name");
    case PresenceColumn:
        return tr("In");
    case DiffersColumn:
        return tr("Differs (%1)").arg(m_differingTasks);
    }
    return {};
}

void CompareModel::setA(const ks::RunResults* a, const QString& name) {
    m_a = a;
    m_nameA = name;
    refresh();
}

void CompareModel::setB(ks::RunResults b, const QString& name) {
    beginResetModel();
    Other o;
    o.thresholds = m_thresholdsAll.value_or(b.thresholds);
    o.results = std::move(b);
    o.name = name;
    m_others.clear();
    m_others.push_back(std::move(o));
    resetAll();
}

void CompareModel::addB(ks::RunResults b, const QString& name) {
    beginResetModel();
    Other o;
    o.thresholds = m_thresholdsAll.value_or(b.thresholds);
    o.results = std::move(b);
    o.name = name;
    m_others.push_back(std::move(o));
    resetAll();
}

void CompareModel::removeB(int other) {
    if (other < 0 || other >= otherCount()) return;
    beginResetModel();
    m_others.erase(m_others.begin() + other);
    resetAll();
}

// Inside beginResetModel(): the pairs' diffs, the union, the rows, then the reset's end.
void CompareModel::resetAll() {
    for (auto& o : m_others)
        o.diff = m_a ? ks::diffResults(*m_a, m_ta, o.results, o.thresholds) : ks::ResultsDiff{};
    rebuildUnion();
    recountDiffering();
    m_rows = shownRows();
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
    emit comparisonChanged();
}

void CompareModel::setThresholds(const ks::Thresholds& a, const ks::Thresholds& b) {
    apply(a, std::vector<ks::Thresholds>(m_others.size(), b));
    m_thresholdsAll = b;
}

void CompareModel::setThresholds(const ks::Thresholds& a, const std::vector<ks::Thresholds>& b) {
    apply(a, b);
    m_thresholdsAll.reset();
}

void CompareModel::apply(const ks::Thresholds& a, const std::vector<ks::Thresholds>& b) {
    m_ta = a;
    for (size_t k = 0; k < m_others.size() && k < b.size(); ++k)
        m_others[k].thresholds = b[k];
    if (!isActive()) return;
    for (auto& o : m_others)
        ks::rethresholdDiff(o.diff, *m_a, m_ta, o.results, o.thresholds);
    recountDiffering();
    if (m_differingOnly && shownRows() != m_rows) {
        rebuildRows(); // other tasks differ now: a reset, which the views lay out again
    } else if (!m_rows.empty()) {
        // Only the flag, metric (zeros pass) and count columns depend on thresholds.
        emit dataChanged(index(0, DiffersColumn), index(rowCount() - 1, columnCount() - 1));
        emit headerDataChanged(Qt::Horizontal, DiffersColumn, columnCount() - 1);
    }
    emit comparisonChanged();
}

void CompareModel::refresh() {
    beginResetModel();
    resetAll();
}

void CompareModel::clear() {
    beginResetModel();
    m_a = nullptr;
    m_others.clear();
    m_nameA.clear();
    resetAll();
}

void CompareModel::setDifferingOnly(bool on) {
    if (on == m_differingOnly) return;
    m_differingOnly = on;
    rebuildRows();
    emit comparisonChanged();
}

void CompareModel::rebuildUnion() {
    m_union.clear();
    if (!isActive()) return;
    // A's tasks (in every pair, in A's order), then each file's own extras in file order.
    std::unordered_map<std::string, size_t> byId;
    for (int k = 0; k < otherCount(); ++k) {
        const auto& tasks = m_others[static_cast<size_t>(k)].diff.tasks;
        for (size_t i = 0; i < tasks.size(); ++i) {
            auto [it, fresh] = byId.try_emplace(tasks[i].id, m_union.size());
            if (fresh) m_union.push_back({std::vector<int>(m_others.size(), -1), 0});
            m_union[it->second].inDiff[static_cast<size_t>(k)] = static_cast<int>(i);
        }
    }
}

void CompareModel::recountDiffering() {
    m_differingAny.fill(0);
    m_differingTasks = 0;
    for (auto& r : m_union) {
        r.differing = 0;
        for (int c = 0; c < ks::CriterionCount; ++c) {
            bool differs = false;
            for (int k = 0; k < otherCount() && !differs; ++k)
                if (const auto* t = pairDiff(r, k))
                    differs = t->criteria[static_cast<size_t>(c)].differs();
            if (differs) {
                ++r.differing;
                ++m_differingAny[static_cast<size_t>(c)];
            }
        }
        if (r.differing) ++m_differingTasks;
    }
}

std::vector<int> CompareModel::shownRows() const {
    std::vector<int> rows;
    for (size_t i = 0; i < m_union.size(); ++i)
        if (!m_differingOnly || m_union[i].differing > 0) rows.push_back(static_cast<int>(i));
    return rows;
}

void CompareModel::rebuildRows() {
    beginResetModel();
    m_rows = shownRows();
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

QString CompareModel::summaryText() const {
    if (!isActive())
        return tr("No comparison: use <b>Compare With\u2026</b> to open a second results file.");
    QString text = tr("<b>A</b> %1: %2, thresholds %3")
                       .arg(m_nameA.toHtmlEscaped(),
                            QString::fromStdString(ks::describeResults(*m_a)).toHtmlEscaped(),
                            QString::fromStdString(m_ta.profile).toHtmlEscaped());
    for (int k = 0; k < otherCount(); ++k) {
        const Other& o = m_others[static_cast<size_t>(k)];
        QStringList differ;
        for (const auto& r : o.diff.run)
            differ << QStringLiteral("%1 %2 | %3")
                          .arg(QString::fromStdString(r.what), QString::fromStdString(r.a),
                               QString::fromStdString(r.b))
                          .toHtmlEscaped();
        text += tr("<br><b>%1</b> %2: %3, thresholds %4. ")
                    .arg(letterB(k), o.name.toHtmlEscaped(),
                         QString::fromStdString(ks::describeResults(o.results)).toHtmlEscaped(),
                         QString::fromStdString(o.thresholds.profile).toHtmlEscaped());
        if (otherCount() == 1)
            text += differ.isEmpty()
                        ? tr("The runs agree in suite, device, preset, seeds and thresholds. ")
                        : tr("The runs differ in: %1. ").arg(differ.join(QStringLiteral("; ")));
        else
            // One line per file where the window allows: the settings only when they differ.
            text += (differ.isEmpty()
                         ? tr("Same settings as A; ")
                         : tr("Differs from A in: %1; ").arg(differ.join(QStringLiteral("; ")))) +
                    tr("<b>%1</b> of %2 tasks differ in a flag.")
                        .arg(o.diff.differingTasks)
                        .arg(o.diff.tasks.size());
    }
    if (otherCount() == 1) {
        const auto& d = m_others.front().diff;
        text +=
            tr("<b>%1 of %2 tasks differ in a flag</b>").arg(d.differingTasks).arg(d.tasks.size());
        if (d.onlyInA || d.onlyInB)
            text += tr(" (%1 only in A, %2 only in B)").arg(d.onlyInA).arg(d.onlyInB);
        return text + QLatin1Char('.');
    }
    return text + tr("<br><b>%1 of %2 tasks differ from A in a flag in some file</b>.")
                      .arg(m_differingTasks)
                      .arg(m_union.size());
}
