// SPDX-License-Identifier: MIT
#include "variantsmodel.h"
#include "filtermatrixmodel.h"

#include <QColor>

#include <cmath>

namespace {
QString ms(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("\u2014");
}
} // namespace

VariantsModel::VariantsModel(QObject* parent) : QAbstractTableModel(parent) {}

void VariantsModel::setTask(const ks::TaskBench* task) {
    beginResetModel();
    if (task) {
        m_task = *task;
        m_bars = ResultsUtil::speedupBars(*task);
    } else {
        m_task.reset();
        m_bars.clear();
    }
    endResetModel();
}

int VariantsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_bars.size());
}

int VariantsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VariantsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !m_task)
        return {};
    const int row = index.row();
    const auto& bar = m_bars[static_cast<size_t>(row)];
    const ks::TimingStats& timing =
        row == 0 ? m_task->baseline : m_task->variants[static_cast<size_t>(row - 1)].timing;
    const ks::VariantResult* v =
        row == 0 ? nullptr : &m_task->variants[static_cast<size_t>(row - 1)];
    using Kind = ResultsUtil::SpeedupBar::Kind;

    if (role == Qt::BackgroundRole && index.column() == ValidationColumn) {
        switch (bar.kind) {
        case Kind::Failed:
            return FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Flagged);
        case Kind::Passed:
        case Kind::Baseline:
            return FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Passed);
        case Kind::Shortcut:
        case Kind::Impossible:
            return FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Error);
        case Kind::NotRun:
            return FilterMatrixModel::stateColor(FilterMatrixModel::CellState::NotRun);
        }
    }
    if (role == Qt::ToolTipRole && index.column() == NoteColumn) return bar.note;
    if (role == Qt::ToolTipRole && index.column() == NameColumn && v)
        return QString::fromStdString(v->summary);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case NameColumn:
        return row == 0 ? tr("PyTorch eager (baseline)") : bar.label;
    case ValidationColumn:
        if (row == 0) return tr("reference");
        if (!v->validation.run) return bar.kind == Kind::Failed ? tr("error") : tr("not run");
        return v->validation.passed ? tr("passed (%1 seeds, max err %2)")
                                          .arg(v->validation.seeds)
                                          .arg(v->validation.maxAbsErr, 0, 'g', 2)
                                    : tr("FAILED (%1)").arg(v->validation.failures.size());
    case MedianColumn:
        return ms(timing.medianMs);
    case IqrColumn:
        return ms(timing.iqrMs());
    case SpeedupColumn:
        return std::isfinite(bar.speedup) ? QStringLiteral("%1x").arg(bar.speedup, 0, 'g', 3)
                                          : QStringLiteral("\u2014");
    case BandwidthColumn:
        return v && std::isfinite(v->gbps) ? QString::number(v->gbps, 'f', 0)
                                           : QStringLiteral("\u2014");
    case NoteColumn: {
        QString kind = ResultsUtil::speedupKindName(bar.kind);
        return bar.note.isEmpty() ? kind : kind + QStringLiteral(": ") + bar.note;
    }
    }
    return {};
}

QVariant VariantsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn:
        return tr("Variant");
    case ValidationColumn:
        return tr("Validation");
    case MedianColumn:
        return tr("Median ms");
    case IqrColumn:
        return tr("IQR ms");
    case SpeedupColumn:
        return tr("Speedup");
    case BandwidthColumn:
        return tr("GB/s");
    case NoteColumn:
        return tr("Note");
    }
    return {};
}
