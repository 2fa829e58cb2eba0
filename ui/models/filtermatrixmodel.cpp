// SPDX-License-Identifier: MIT
#include "filtermatrixmodel.h"

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
} // namespace

FilterMatrixModel::FilterMatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

std::optional<ks::Criterion> FilterMatrixModel::criterionOf(int column) {
    if (column < OutputRangeColumn || column > InputImpactColumn) return std::nullopt;
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
    return t->status == ks::TaskStatus::Error ? CellState::Error : CellState::NotRun;
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
        const double metric = t.metric(*c);
        const double threshold = m_thresholds.value(*c);
        const auto& info = ks::criterionInfo(*c);
        switch (role) {
        case Qt::DisplayRole:
            switch (state) {
            case CellState::Flagged:
                return QStringLiteral("\u2691 ") + formatMetric(metric);
            case CellState::Passed:
                return formatMetric(metric);
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
                return tr("%1: the task failed: %2")
                    .arg(QString::fromUtf8(info.label), QString::fromStdString(t.error));
            }
            return tr("<p><b>%1</b> for %2: %3</p><p>%4 = %5<br>threshold = %6 (flagged iff %4 "
                      "&lt; threshold)</p><p>%7</p>")
                .arg(QString::fromUtf8(info.label), QString::fromStdString(t.id), status,
                     QString::fromUtf8(info.metricLabel), QString::number(metric, 'g', 6),
                     QString::number(threshold, 'g', 6),
                     QString::fromUtf8(info.description).toHtmlEscaped());
        }
        case SortRole:
            return state == CellState::NotRun || state == CellState::Error
                       ? std::numeric_limits<double>::infinity()
                       : sortableMetric(metric);
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
            return tr("<b>%1</b>: %2<br>metric: %3, threshold %4; %5 task(s) flagged")
                .arg(QString::fromUtf8(info.label),
                     QString::fromUtf8(info.description).toHtmlEscaped(),
                     QString::fromUtf8(info.metricLabel))
                .arg(m_thresholds.value(*c), 0, 'g', 6)
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

void FilterMatrixModel::upsertTask(ks::TaskResult task) {
    const QString id = QString::fromStdString(task.id);
    const int existing = rowOf(id);
    if (existing >= 0) {
        m_results.tasks[static_cast<size_t>(existing)] = std::move(task);
        recomputeRow(existing);
        recomputeCounts();
        emit dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
    } else {
        const int row = rowCount();
        beginInsertRows({}, row, row);
        m_results.tasks.push_back(std::move(task));
        m_flags.push_back(0);
        m_rowById.insert(id, row);
        recomputeRow(row);
        recomputeCounts();
        endInsertRows();
    }
    emit headerDataChanged(Qt::Horizontal, OutputRangeColumn, AnyFlagColumn);
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
        emit dataChanged(index(0, OutputRangeColumn), index(rowCount() - 1, AnyFlagColumn));
    emit headerDataChanged(Qt::Horizontal, OutputRangeColumn, AnyFlagColumn);
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
