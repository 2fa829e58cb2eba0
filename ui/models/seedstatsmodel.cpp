// SPDX-License-Identifier: MIT
#include "seedstatsmodel.h"

#include <cmath>

SeedStatsModel::SeedStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void SeedStatsModel::setTask(const ks::TaskResult* task) {
    beginResetModel();
    m_stats = task ? task->seedStats : std::vector<ks::SeedStat>{};
    endResetModel();
}

int SeedStatsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_stats.size());
}

int SeedStatsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SeedStatsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& s = m_stats[static_cast<size_t>(index.row())];
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    if (index.column() == SeedColumn) return qlonglong(s.seed);
    double v = 0;
    switch (index.column()) {
    case MeanColumn:
        v = s.mean;
        break;
    case StdColumn:
        v = s.std;
        break;
    case MinColumn:
        v = s.min;
        break;
    case MaxColumn:
        v = s.max;
        break;
    }
    if (role == Qt::EditRole) return v;
    return std::isnan(v) ? QStringLiteral("NaN") : QString::number(v, 'g', 5);
}

QVariant SeedStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SeedColumn:
        return tr("Seed");
    case MeanColumn:
        return tr("Mean");
    case StdColumn:
        return tr("Std");
    case MinColumn:
        return tr("Min");
    case MaxColumn:
        return tr("Max");
    }
    return {};
}
