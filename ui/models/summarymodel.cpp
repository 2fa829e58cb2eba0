// SPDX-License-Identifier: MIT
#include "summarymodel.h"
#include "filtermatrixmodel.h"

#include <QColor>

SummaryModel::SummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void SummaryModel::setSourceModel(FilterMatrixModel* model) {
    if (m_source) disconnect(m_source, nullptr, this, nullptr);
    m_source = model;
    if (m_source) {
        // flagsChanged covers new thresholds and streamed tasks; reset covers a new file.
        connect(m_source, &FilterMatrixModel::flagsChanged, this, &SummaryModel::recount);
        connect(m_source, &QAbstractItemModel::modelReset, this, &SummaryModel::recount);
        connect(m_source, &QObject::destroyed, this, [this] {
            m_source = nullptr;
            recount();
        });
    }
    recount();
}

int SummaryModel::columnOfLevel(int level) {
    switch (level) {
    case 1:
        return Level1Column;
    case 2:
        return Level2Column;
    case 3:
        return Level3Column;
    default:
        return OtherLevelColumn;
    }
}

void SummaryModel::recount() {
    for (auto& row : m_counts)
        row.fill(0);
    if (m_source) {
        for (int r = 0; r < m_source->rowCount(); ++r) {
            const auto* t = m_source->task(r);
            const int col = columnOfLevel(t->level);
            auto bump = [&](int row) {
                ++m_counts[static_cast<size_t>(row)][TotalColumn];
                ++m_counts[static_cast<size_t>(row)][static_cast<size_t>(col)];
            };
            bump(TaskRow);
            for (const auto& c : ks::criteria())
                if (m_source->cellState(r, c.criterion) == FilterMatrixModel::CellState::Flagged)
                    bump(static_cast<int>(c.criterion));
            switch (m_source->anyFlagState(r)) {
            case FilterMatrixModel::CellState::Flagged:
                bump(AnyFlagRow);
                break;
            case FilterMatrixModel::CellState::Error:
                bump(ErrorRow);
                break;
            case FilterMatrixModel::CellState::NotRun:
                bump(NotRunRow);
                break;
            case FilterMatrixModel::CellState::Passed:
                break;
            }
        }
    }
    emit dataChanged(index(0, TotalColumn), index(RowCount - 1, ColumnCount - 1));
}

int SummaryModel::count(int row, int column) const {
    if (row < 0 || row >= RowCount || column <= LabelColumn || column >= ColumnCount) return 0;
    return m_counts[static_cast<size_t>(row)][static_cast<size_t>(column)];
}

int SummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : RowCount;
}

int SummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SummaryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row(), column = index.column();
    if (column == LabelColumn) {
        if (role == Qt::DisplayRole) {
            if (row < ks::CriterionCount)
                return QString::fromUtf8(ks::criteria()[static_cast<size_t>(row)].label);
            switch (row) {
            case AnyFlagRow:
                return tr("Any flag");
            case ErrorRow:
                return tr("Failed");
            case NotRunRow:
                return tr("Not run");
            case TaskRow:
                return tr("Tasks");
            }
        }
        if (role == Qt::ToolTipRole && row < ks::CriterionCount && m_source) {
            const auto& c = ks::criteria()[static_cast<size_t>(row)];
            return tr("flagged iff %1")
                .arg(QString::fromStdString(ks::criterionRuleText(c.criterion, m_source->thresholds())));
        }
        return {};
    }
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return count(row, column);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole:
        if ((row < ks::CriterionCount || row == AnyFlagRow) && count(row, column) > 0)
            return FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Flagged);
        if (row == ErrorRow && count(row, column) > 0)
            return FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Error);
        return {};
    }
    return {};
}

QVariant SummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return {};
    switch (section) {
    case LabelColumn:
        return tr("Criterion");
    case TotalColumn:
        return tr("All");
    case Level1Column:
        return tr("Level 1");
    case Level2Column:
        return tr("Level 2");
    case Level3Column:
        return tr("Level 3");
    case OtherLevelColumn:
        return tr("Extra");
    }
    return {};
}
