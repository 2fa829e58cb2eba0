// SPDX-License-Identifier: MIT
#include "redundancymodel.h"

#include <ks/core/analysisreports.h>

namespace {
// What each kind means, for the tooltip of its cell (docs/redundancy.md, "Method").
QString kindHelp(ks::RedundantNode::Kind k) {
    switch (k) {
    case ks::RedundantNode::Kind::Dead:
        return QObject::tr("its values never reach the output (at most its shape does)");
    case ks::RedundantNode::Kind::NoEffect:
        return QObject::tr("bypassing it (output := one of its inputs) leaves the output unchanged on every seed");
    case ks::RedundantNode::Kind::Duplicate:
        return QObject::tr("the same op on the same inputs as an earlier node; reusing that one changes nothing");
    case ks::RedundantNode::Kind::ConstantOutput:
        return QObject::tr("its output is one constant on every seed and element, whatever the inputs");
    case ks::RedundantNode::Kind::FeedsRedundant:
        return QObject::tr("live in the task, but it only feeds nodes found redundant");
    }
    return {};
}
} // namespace

RedundancyModel::RedundancyModel(QObject* parent) : QAbstractTableModel(parent) {}

void RedundancyModel::setTask(const ks::TaskResult* task) {
    beginResetModel();
    m_report.reset();
    m_taskFailed = task && task->status == ks::TaskStatus::Error;
    if (task && task->redundancy) m_report = task->redundancy;
    endResetModel();
}

QString RedundancyModel::summary() const {
    if (!m_report)
        return m_taskFailed ? tr("The task failed: redundancy was not analysed.")
                            : tr("Redundant computation (filter 6) was not run for this task.");
    const auto& r = *m_report;
    if (!r.error.empty()) return tr("The analysis failed: %1").arg(QString::fromStdString(r.error));
    const QString how = tr("%1 ops tried on %2 seeds, %3 preset, %4")
                            .arg(r.opsExamined)
                            .arg(r.seeds)
                            .arg(QString::fromUtf8(ks::presetName(r.preset)),
                                 QString::fromStdString(r.device == "cpu" ? "CPU" : "CUDA"));
    if (!r.hasRedundancy()) return tr("No redundant computation (%1).").arg(how);
    const int ops = static_cast<int>(r.nodes.size()), args = static_cast<int>(r.unused.size());
    return tr("%1% of the FLOPs are redundant: %2 %3, %4 unused %5 (%6).")
        .arg(100 * r.flopFraction(), 0, 'g', 3)
        .arg(ops)
        .arg(ops == 1 ? tr("op") : tr("ops"))
        .arg(args)
        .arg(args == 1 ? tr("argument") : tr("arguments"), how);
}

int RedundancyModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->nodes.size() + m_report->unused.size());
}

int RedundancyModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RedundancyModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const size_t row = static_cast<size_t>(index.row());
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column == LineColumn || column == FlopsColumn ? int(Qt::AlignRight | Qt::AlignVCenter)
                                                             : int(Qt::AlignLeft | Qt::AlignVCenter);
    if (row >= m_report->nodes.size()) { // an unused argument
        const auto& u = m_report->unused[row - m_report->nodes.size()];
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
        switch (column) {
        case KindColumn:
            return u.isParam ? tr("unused parameter") : tr("unused input");
        case OpColumn:
            return QString::fromStdString(u.name);
        case ReasonColumn:
            return QString::fromStdString(u.reason);
        default:
            return role == Qt::DisplayRole ? QStringLiteral("\u2014") : QVariant();
        }
    }
    const auto& n = m_report->nodes[row];
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case KindColumn:
            return kindHelp(n.kind);
        case OpColumn:
            return QString::fromStdString(n.node).toHtmlEscaped();
        case ReasonColumn:
        case SourceColumn:
            return QString::fromStdString(column == ReasonColumn ? n.reason : n.sourceText);
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    switch (column) {
    case KindColumn:
        return QString::fromUtf8(ks::redundantKindName(n.kind));
    case OpColumn:
        return QString::fromStdString(n.op);
    case LineColumn:
        if (role == Qt::EditRole) return n.line;
        return n.line > 0 ? QString::number(n.line) : QStringLiteral("?");
    case SourceColumn:
        return QString::fromStdString(n.sourceText);
    case ReasonColumn:
        return QString::fromStdString(n.reason);
    case FlopsColumn:
        if (role == Qt::EditRole) return n.flops;
        // A removable copy does no FLOPs; what it costs is the bytes it moves.
        if (n.flops == 0 && n.bytes > 0) return tr("%1 B copied").arg(n.bytes, 0, 'g', 3);
        return QString::number(n.flops, 'g', 3);
    }
    return {};
}

QVariant RedundancyModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case KindColumn:
        return tr("Kind");
    case OpColumn:
        return tr("Op");
    case LineColumn:
        return tr("Line");
    case SourceColumn:
        return tr("Source");
    case ReasonColumn:
        return tr("Reason");
    case FlopsColumn:
        return tr("FLOPs");
    }
    return {};
}
