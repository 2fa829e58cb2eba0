// SPDX-License-Identifier: MIT
#include "axesmodel.h"
#include "filtermatrixmodel.h"

#include <QColor>

#include <cmath>

AxesModel::AxesModel(QObject* parent) : QAbstractTableModel(parent) {}

void AxesModel::setTask(const ks::TaskResult* task, double threshold) {
    beginResetModel();
    m_threshold = threshold;
    m_values.clear();
    m_sizes.clear();
    if (task && task->axes.run) {
        m_values = task->axes.perAxis;
        m_sizes.push_back(task->seeds);
        for (auto s : task->outputShape)
            m_sizes.push_back(s);
    }
    endResetModel();
}

void AxesModel::setThreshold(double threshold) {
    m_threshold = threshold;
    if (!m_values.empty())
        emit dataChanged(index(0, StateColumn), index(rowCount() - 1, StateColumn));
}

QString AxesModel::axisName(int axis) {
    return axis == 0 ? tr("0 (seeds)") : QString::number(axis);
}

bool AxesModel::flagged(int axis) const {
    return axis >= 0 && axis < rowCount() &&
           ks::flaggedBelow(m_values[static_cast<size_t>(axis)], m_threshold);
}

int AxesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_values.size());
}

int AxesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AxesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int axis = index.row();
    const double v = m_values[static_cast<size_t>(axis)];
    const auto size =
        static_cast<size_t>(axis) < m_sizes.size() ? m_sizes[static_cast<size_t>(axis)] : -1;
    switch (index.column()) {
    case AxisColumn:
        if (role == Qt::DisplayRole) return axisName(axis);
        return {};
    case SizeColumn:
        if (role == Qt::DisplayRole)
            return size < 0 ? QVariant(QStringLiteral("?")) : QVariant(qlonglong(size));
        return {};
    case ValueColumn:
        if (role == Qt::DisplayRole)
            return std::isnan(v) ? QStringLiteral("NaN") : QString::number(v, 'g', 4);
        if (role == Qt::EditRole) return v;
        if (role == Qt::ToolTipRole && std::isnan(v))
            return tr("std along a size-1 axis is NaN, which never passes '<' (never flagged)");
        return {};
    case StateColumn:
        if (role == Qt::DisplayRole)
            return flagged(axis)   ? tr("uniform (flagged)")
                   : std::isnan(v) ? tr("NaN")
                                   : tr("varies");
        if (role == Qt::BackgroundRole)
            return FilterMatrixModel::stateColor(flagged(axis)
                                                     ? FilterMatrixModel::CellState::Flagged
                                                     : FilterMatrixModel::CellState::Passed);
        return {};
    }
    return {};
}

QVariant AxesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case AxisColumn:
        return tr("Axis");
    case SizeColumn:
        return tr("Size");
    case ValueColumn:
        return tr("max std along axis");
    case StateColumn:
        return tr("State");
    }
    return {};
}
