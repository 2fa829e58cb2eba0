// SPDX-License-Identifier: MIT
#include "comparemodel.h"
#include "filtermatrixmodel.h"

#include <QColor>
#include <QFont>

#include <cmath>
#include <limits>

namespace {
constexpr double Inf = std::numeric_limits<double>::infinity();

QString num(double v) {
    return std::isnan(v) ? QString() : QString::number(v, 'g', 3);
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
} // namespace

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

std::optional<ks::Criterion> CompareModel::criterionOf(int column) {
    if (column < FirstCriterionColumn || column >= ColumnCount) return std::nullopt;
    return static_cast<ks::Criterion>((column - FirstCriterionColumn) / 3);
}

CompareModel::Part CompareModel::partOf(int column) {
    return static_cast<Part>((column - FirstCriterionColumn) % 3);
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

const ks::TaskDiff* CompareModel::taskDiff(int row) const {
    if (row < 0 || static_cast<size_t>(row) >= m_rows.size()) return nullptr;
    return &m_diff.tasks[static_cast<size_t>(m_rows[static_cast<size_t>(row)])];
}

int CompareModel::rowOf(const QString& id) const {
    const std::string key = id.toStdString();
    for (size_t r = 0; r < m_rows.size(); ++r)
        if (m_diff.tasks[static_cast<size_t>(m_rows[r])].id == key) return static_cast<int>(r);
    return -1;
}

QString CompareModel::cellText(const ks::TaskDiff& t, ks::Criterion c, Part p) const {
    const auto& cd = t.criteria[static_cast<size_t>(c)];
    if (p == Part::Delta) {
        const double d = cd.delta();
        return std::isnan(d) ? QString() : (d > 0 ? QStringLiteral("+") : QString()) + num(d);
    }
    const bool a = p == Part::A;
    const ks::FlagState s = a ? cd.a : cd.b;
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
    const ks::TaskResult* r =
        a ? &m_a->tasks[static_cast<size_t>(t.indexA)] : &m_b.tasks[static_cast<size_t>(t.indexB)];
    const QString text = QString::fromStdString(ks::flagCellText(r, c, a ? m_ta : m_tb));
    return s == ks::FlagState::Flagged ? QStringLiteral("\u2691 ") + text : text;
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ks::TaskDiff& t = *taskDiff(index.row());
    const int column = index.column();
    if (role == TaskIdRole) return QString::fromStdString(t.id);

    if (const auto c = criterionOf(column)) {
        const Part p = partOf(column);
        const auto& cd = t.criteria[static_cast<size_t>(*c)];
        const bool differs = cd.differs();
        switch (role) {
        case Qt::DisplayRole:
            return cellText(t, *c, p);
        case DiffersRole:
            return differs;
        case FlagStateRole:
            return p == Part::Delta ? QVariant() : QVariant(int(p == Part::A ? cd.a : cd.b));
        case Qt::TextAlignmentRole:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::BackgroundRole:
            if (p == Part::Delta) return differs ? QVariant(DiffersColor) : QVariant();
            if ((p == Part::A ? cd.a : cd.b) == ks::FlagState::Missing) return {};
            return FilterMatrixModel::stateColor(cellState(p == Part::A ? cd.a : cd.b));
        case Qt::ForegroundRole:
            return QColor(Qt::black);
        case Qt::FontRole:
            if (differs) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        case SortRole: {
            if (p == Part::Delta) {
                const double d = cd.delta();
                return std::isnan(d) ? Inf : d;
            }
            const double m = p == Part::A ? cd.metricA : cd.metricB;
            return std::isnan(m) ? Inf : m;
        }
        case Qt::ToolTipRole: {
            const auto& info = ks::criterionInfo(*c);
            if (p == Part::Delta)
                return tr("<b>%1</b> of %2: B \u2212 A of %3 = %4%5")
                    .arg(QString::fromUtf8(info.label), QString::fromStdString(t.id),
                         QString::fromUtf8(info.metricLabel).toHtmlEscaped(), num(cd.delta()),
                         differs ? tr("<br><b>the flags differ</b>") : QString());
            const bool a = p == Part::A;
            const ks::FlagState s = a ? cd.a : cd.b;
            return tr("<b>%1</b> of %2 in %3: %4<br>%5 = %6<br>flagged iff %7")
                .arg(QString::fromUtf8(info.label), QString::fromStdString(t.id),
                     (a ? m_nameA : m_nameB).toHtmlEscaped(),
                     QString::fromUtf8(ks::flagStateName(s)),
                     QString::fromUtf8(info.metricLabel).toHtmlEscaped(),
                     QString::number(a ? cd.metricA : cd.metricB, 'g', 6),
                     QString::fromStdString(ks::criterionRuleText(*c, a ? m_ta : m_tb))
                         .toHtmlEscaped());
        }
        default:
            return {};
        }
    }

    switch (column) {
    case IdColumn:
        if (role == Qt::DisplayRole) return QString::fromStdString(t.id);
        if (role == SortRole) return qint64(t.level == 0 ? 99 : t.level) * 1000000 + t.number;
        break;
    case NameColumn:
        if (role == Qt::DisplayRole || role == SortRole) return QString::fromStdString(t.name);
        break;
    case PresenceColumn:
        if (role == Qt::DisplayRole)
            return t.inA() && t.inB() ? tr("both") : t.inA() ? tr("only in A") : tr("only in B");
        if (role == SortRole) return t.inA() && t.inB() ? 0 : t.inA() ? 1 : 2;
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignCenter);
        break;
    case DiffersColumn: {
        const int n = t.differingCount();
        if (role == Qt::DisplayRole) return n ? tr("%n flag(s)", nullptr, n) : QString();
        if (role == SortRole) return -n; // ascending: the most differing first
        if (role == Qt::BackgroundRole && n) return DiffersColor;
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignCenter);
        break;
    }
    default:
        break;
    }
    if (role == DiffersRole) return t.differs();
    return {};
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (const auto c = criterionOf(section)) {
        const auto& info = ks::criterionInfo(*c);
        const auto i = static_cast<size_t>(*c);
        const Part p = partOf(section);
        if (role == Qt::DisplayRole) {
            switch (p) {
            case Part::A:
                return tr("%1 A (%2)").arg(QString::fromUtf8(info.label)).arg(m_diff.flaggedA[i]);
            case Part::B:
                return tr("B (%1)").arg(m_diff.flaggedB[i]);
            case Part::Delta:
                return tr("\u0394 (%1 differ)").arg(m_diff.differing[i]);
            }
        }
        if (role == Qt::ToolTipRole)
            return tr("<b>%1</b>: flagged in A (%2): %3; in B (%4): %5; the flags differ on %6 "
                      "task(s). "
                      "\u0394 is B \u2212 A of %7.")
                .arg(QString::fromUtf8(info.label), m_nameA.toHtmlEscaped())
                .arg(m_diff.flaggedA[i])
                .arg(m_nameB.toHtmlEscaped())
                .arg(m_diff.flaggedB[i])
                .arg(m_diff.differing[i])
                .arg(QString::fromUtf8(info.metricLabel).toHtmlEscaped());
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
        return tr("Differs (%1)").arg(m_diff.differingTasks);
    }
    return {};
}

void CompareModel::setA(const ks::RunResults* a, const QString& name) {
    m_a = a;
    m_nameA = name;
    refresh();
}

void CompareModel::setB(ks::RunResults b, const QString& name) {
    m_b = std::move(b);
    m_hasB = true;
    m_nameB = name;
    refresh();
}

void CompareModel::setThresholds(const ks::Thresholds& a, const ks::Thresholds& b) {
    m_ta = a;
    m_tb = b;
    if (!isActive()) return;
    ks::rethresholdDiff(m_diff, *m_a, m_ta, m_b, m_tb);
    if (m_differingOnly && shownRows() != m_rows) {
        rebuildRows(); // other tasks differ now: a reset, which the views lay out again
    } else if (!m_rows.empty()) {
        // Only the flag, metric (zeros pass) and count columns depend on thresholds.
        emit dataChanged(index(0, DiffersColumn), index(rowCount() - 1, ColumnCount - 1));
        emit headerDataChanged(Qt::Horizontal, DiffersColumn, ColumnCount - 1);
    }
    emit comparisonChanged();
}

void CompareModel::refresh() {
    if (isActive())
        m_diff = ks::diffResults(*m_a, m_ta, m_b, m_tb);
    else
        m_diff = {};
    rebuildRows();
    emit comparisonChanged();
}

void CompareModel::clear() {
    m_a = nullptr;
    m_b = {};
    m_hasB = false;
    m_nameA.clear();
    m_nameB.clear();
    refresh();
}

void CompareModel::setDifferingOnly(bool on) {
    if (on == m_differingOnly) return;
    m_differingOnly = on;
    rebuildRows();
    emit comparisonChanged();
}

std::vector<int> CompareModel::shownRows() const {
    std::vector<int> rows;
    for (size_t i = 0; i < m_diff.tasks.size(); ++i)
        if (!m_differingOnly || m_diff.tasks[i].differs()) rows.push_back(static_cast<int>(i));
    return rows;
}

void CompareModel::rebuildRows() {
    beginResetModel();
    m_rows = shownRows();
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

QString CompareModel::summaryText() const {
    if (!isActive())
        return tr("No comparison: use <b>Compare With\u2026</b> to open a second results file.");
    QStringList differ;
    for (const auto& r : m_diff.run)
        differ << QStringLiteral("%1 %2 | %3")
                      .arg(QString::fromStdString(r.what), QString::fromStdString(r.a),
                           QString::fromStdString(r.b))
                      .toHtmlEscaped();
    QString text =
        tr("<b>A</b> %1: %2, thresholds %3<br><b>B</b> %4: %5, thresholds %6<br>")
            .arg(m_nameA.toHtmlEscaped(),
                 QString::fromStdString(ks::describeResults(*m_a)).toHtmlEscaped(),
                 QString::fromStdString(m_ta.profile).toHtmlEscaped(), m_nameB.toHtmlEscaped(),
                 QString::fromStdString(ks::describeResults(m_b)).toHtmlEscaped(),
                 QString::fromStdString(m_tb.profile).toHtmlEscaped());
    text += differ.isEmpty()
                ? tr("The runs agree in suite, device, preset, seeds and thresholds. ")
                : tr("The runs differ in: %1. ").arg(differ.join(QStringLiteral("; ")));
    text += tr("<b>%1 of %2 tasks differ in a flag</b>")
                .arg(m_diff.differingTasks)
                .arg(m_diff.tasks.size());
    if (m_diff.onlyInA || m_diff.onlyInB)
        text += tr(" (%1 only in A, %2 only in B)").arg(m_diff.onlyInA).arg(m_diff.onlyInB);
    return text + QLatin1Char('.');
}
