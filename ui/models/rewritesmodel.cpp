// SPDX-License-Identifier: MIT
#include "rewritesmodel.h"

#include <QColor>
#include <QFont>

RewritesModel::RewritesModel(QObject* parent) : QAbstractTableModel(parent) {}

void RewritesModel::setTask(const ks::TaskResult* task) {
    beginResetModel();
    m_report.reset();
    if (task && task->inefficiency) m_report = task->inefficiency;
    endResetModel();
}

void RewritesModel::setThresholds(const ks::Thresholds& thresholds) {
    m_thresholds = thresholds;
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

bool RewritesModel::flags(const ks::RewriteResult& r) const {
    // The same rule as the criterion (ks::inefficiencyVerdict), for one rewrite.
    return r.implemented && r.equal && r.error.empty() &&
           ks::flaggedAtLeast(r.speedup, m_thresholds.value(ks::Threshold::BaselineRewriteSpeedup));
}

int RewritesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->rewrites.size());
}

int RewritesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RewritesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto& r = m_report->rewrites[static_cast<size_t>(index.row())];
    const int column = index.column();
    const bool ran = r.implemented && r.error.empty();
    switch (role) {
    case FlaggedRole:
        return flags(r);
    case Qt::TextAlignmentRole:
        return column == RuleColumn || column == WhatColumn || column == EqualColumn
                   ? int(Qt::AlignLeft | Qt::AlignVCenter)
                   : int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (column == SpeedupColumn && flags(r)) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (column == EqualColumn && r.implemented && !r.equal) return QColor(0xc6, 0x28, 0x28);
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case EqualColumn:
            return r.error.empty() ? tr("compared with the task's output on every seed (shape, then allclose)")
                                   : QString::fromStdString(r.error);
        case RuleColumn:
            return QString::fromStdString(r.node).toHtmlEscaped();
        case WhatColumn:
            return QString::fromStdString(r.what);
        case SpeedupColumn:
            if (r.originalMs > 0 && r.timeMs > 0)
                return tr("original graph %1 ms / rewritten graph %2 ms, timed in alternation, call for call; "
                          "flags at \u2265 %3x")
                    .arg(r.originalMs, 0, 'g', 4)
                    .arg(r.timeMs, 0, 'g', 4)
                    .arg(m_thresholds.value(ks::Threshold::BaselineRewriteSpeedup));
            return tr("original graph time / rewritten graph time, both run the same way; flags at \u2265 %1x")
                .arg(m_thresholds.value(ks::Threshold::BaselineRewriteSpeedup));
        default:
            return {};
        }
    case Qt::DisplayRole:
    case Qt::EditRole:
        break;
    default:
        return {};
    }
    const bool edit = role == Qt::EditRole;
    switch (column) {
    case RuleColumn:
        return QString::fromStdString(r.rule);
    case LineColumn:
        if (edit) return r.line;
        return r.line > 0 ? QString::number(r.line) : QStringLiteral("?");
    case EqualColumn:
        if (edit) return r.equal;
        if (!r.implemented) return tr("detected only");
        if (!r.error.empty()) return tr("failed");
        return r.equal ? tr("equal") : tr("NOT equal");
    case MaxDiffColumn:
        if (edit) return r.maxAbsDiff;
        return ran ? QString::number(r.maxAbsDiff, 'g', 3) : QStringLiteral("\u2014");
    case TimeColumn:
        if (edit) return r.timeMs;
        return ran && r.equal ? QString::number(r.timeMs, 'g', 4) : QStringLiteral("\u2014");
    case SpeedupColumn:
        if (edit) return r.speedup;
        if (!(ran && r.equal)) return QStringLiteral("\u2014");
        return (flags(r) ? QStringLiteral("\u2691 ") : QString()) + QString::number(r.speedup, 'g', 3) +
               QStringLiteral("x");
    case WhatColumn:
        return QString::fromStdString(r.what);
    }
    return {};
}

QVariant RewritesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    // CPU timings say little about a GPU baseline; the header says which they are.
    const bool cpu = m_report && m_report->device == "cpu";
    switch (section) {
    case RuleColumn:
        return tr("Rule");
    case LineColumn:
        return tr("Line");
    case EqualColumn:
        return tr("Equal?");
    case MaxDiffColumn:
        return tr("Max diff");
    case TimeColumn:
        return cpu ? tr("Time ms (CPU)") : tr("Time ms");
    case SpeedupColumn:
        return tr("Speedup");
    case WhatColumn:
        return tr("What");
    }
    return {};
}
