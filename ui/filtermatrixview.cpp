// SPDX-License-Identifier: MIT
#include "filtermatrixview.h"

#include "celldelegate.h"

#include <models/filtermatrixmodel.h>
#include <models/filterproxymodel.h>

#include <ks/core/criteria.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

FilterMatrixView::FilterMatrixView(FilterMatrixModel* model, FilterProxyModel* proxy,
                                   QWidget* parent)
    : QWidget(parent), m_model(model), m_proxy(proxy) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* bar = new QHBoxLayout;
    m_search = new QLineEdit;
    m_search->setObjectName(QStringLiteral("search"));
    m_search->setPlaceholderText(tr("Search id, name or category (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_level = new QComboBox;
    m_level->setObjectName(QStringLiteral("levelFilter"));
    m_category = new QComboBox;
    m_category->setObjectName(QStringLiteral("categoryFilter"));
    m_category->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_flaggedOnly = new QCheckBox(tr("Flagged only"));
    m_flaggedOnly->setObjectName(QStringLiteral("flaggedOnly"));
    m_flaggedBy = new QComboBox;
    m_flaggedBy->setObjectName(QStringLiteral("flaggedBy"));
    m_flaggedBy->setToolTip(tr("Which flag \"Flagged only\" shows: any, or one criterion's"));
    m_flaggedBy->addItem(tr("by any criterion"), -1);
    for (const auto& c : ks::criteria())
        m_flaggedBy->addItem(tr("by %1").arg(QString::fromUtf8(c.label)),
                             static_cast<int>(c.criterion));
    m_flaggedBy->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_counts = new QLabel;
    m_counts->setObjectName(QStringLiteral("counts"));
    // Fixed width and right-aligned, so that updating the counts never re-lays out the window.
    m_counts->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_counts->setFixedWidth(m_counts->fontMetrics().horizontalAdvance(
        QStringLiteral("0000 tasks, 0000 flagged, 0000 failed \u2014 showing 0000")));
    bar->addWidget(m_search, 2);
    bar->addWidget(m_level);
    bar->addWidget(m_category);
    bar->addWidget(m_flaggedOnly);
    bar->addWidget(m_flaggedBy);
    bar->addStretch(1);
    bar->addWidget(m_counts);
    layout->addLayout(bar);

    m_stack = new QStackedWidget;
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("filterMatrix"));
    m_table->setModel(m_proxy);
    m_table->setItemDelegate(new CellDelegate(m_table));
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // file order until the user sorts
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(false);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(false);
    // Names are long (KernelBench's "13_ConvTranspose3d_Mean_Add_..."): they get the spare width.
    m_table->horizontalHeader()->setSectionResizeMode(FilterMatrixModel::NameColumn,
                                                      QHeaderView::Stretch);
    m_table->setColumnWidth(FilterMatrixModel::IdColumn, 64);
    m_table->setColumnWidth(FilterMatrixModel::LevelColumn, 44);
    m_table->setColumnWidth(FilterMatrixModel::NameColumn, 290);
    m_table->setColumnWidth(FilterMatrixModel::CategoryColumn, 96);
    for (int c = FilterMatrixModel::OutputRangeColumn; c <= FilterMatrixModel::InputImpactColumn;
         ++c)
        m_table->setColumnWidth(c, 110);
    // Filters 5-6 show a reason, not a number ("⚑ 34.5x diag-matmul"), under longer titles.
    m_table->setColumnWidth(FilterMatrixModel::BaselineInefficiencyColumn, 164);
    m_table->setColumnWidth(FilterMatrixModel::RedundantComputationColumn, 176);
    m_table->setColumnWidth(FilterMatrixModel::ZerosPassColumn, 110);
    m_table->setColumnWidth(FilterMatrixModel::AnyFlagColumn, 92);
    m_stack->addWidget(m_table);

    auto* empty = new QWidget;
    auto* emptyLayout = new QVBoxLayout(empty);
    auto* emptyText = new QLabel(
        tr("<h3>No results yet</h3><p>Run the built-in suite to see which tasks are "
           "flawed, or open a results file made by <tt>kernelsieve-cli filter</tt>.</p>"));
    emptyText->setAlignment(Qt::AlignCenter);
    emptyText->setWordWrap(true);
    auto* buttons = new QHBoxLayout;
    auto* run = new QPushButton(tr("Run the built-in suite"));
    run->setObjectName(QStringLiteral("emptyRun"));
    auto* open = new QPushButton(tr("Open results\u2026"));
    buttons->addStretch();
    buttons->addWidget(run);
    buttons->addWidget(open);
    buttons->addStretch();
    emptyLayout->addStretch();
    emptyLayout->addWidget(emptyText);
    emptyLayout->addLayout(buttons);
    emptyLayout->addStretch();
    m_stack->addWidget(empty);
    layout->addWidget(m_stack, 1);

    connect(run, &QPushButton::clicked, this, &FilterMatrixView::runSuiteRequested);
    connect(open, &QPushButton::clicked, this, &FilterMatrixView::openRequested);
    connect(m_search, &QLineEdit::textChanged, m_proxy, &FilterProxyModel::setSearchText);
    connect(m_flaggedOnly, &QCheckBox::toggled, m_proxy, &FilterProxyModel::setFlaggedOnly);
    connect(m_flaggedBy, &QComboBox::currentIndexChanged, this, [this] {
        const int c = m_flaggedBy->currentData().toInt();
        m_proxy->setFlaggedCriterion(
            c < 0 ? std::nullopt : std::optional<ks::Criterion>(static_cast<ks::Criterion>(c)));
        if (c >= 0) m_flaggedOnly->setChecked(true);
    });
    connect(m_level, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setLevel(m_level->currentData().toInt()); });
    connect(m_category, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setCategory(m_category->currentData().toString()); });

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        const QString id = currentTaskId();
        if (id != m_lastCurrent) {
            m_lastCurrent = id;
            emit currentTaskChanged(id);
        }
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &FilterMatrixView::selectionChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        refreshFilterChoices();
        updateEmptyState();
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        refreshFilterChoices();
        updateEmptyState();
    });
    connect(m_model, &FilterMatrixModel::flagsChanged, this, &FilterMatrixView::updateCounts);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &FilterMatrixView::updateCounts);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &FilterMatrixView::updateCounts);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &FilterMatrixView::updateCounts);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &FilterMatrixView::updateCounts);
    refreshFilterChoices();
    updateEmptyState();
    updateCounts();
}

QString FilterMatrixView::currentTaskId() const {
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? current.data(FilterMatrixModel::TaskIdRole).toString() : QString();
}

QStringList FilterMatrixView::selectedTaskIds() const {
    QStringList ids;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        ids << index.data(FilterMatrixModel::TaskIdRole).toString();
    return ids;
}

bool FilterMatrixView::selectTask(const QString& id) {
    const int sourceRow = m_model->rowOf(id);
    if (sourceRow < 0) return false;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!index.isValid()) return false; // filtered out
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    m_table->scrollTo(index);
    return true;
}

void FilterMatrixView::refreshFilterChoices() {
    // Rebuild the combos only when their choices change, keeping the user's pick.
    QList<int> levels = m_model->levels();
    QStringList levelKeys;
    for (int l : levels)
        levelKeys << QString::number(l);
    if (m_level->property("keys").toStringList() != levelKeys || m_level->count() == 0) {
        const int current = m_level->currentData().toInt();
        QSignalBlocker block(m_level);
        m_level->clear();
        m_level->addItem(tr("All levels"), 0);
        for (int l : levels)
            if (l > 0) m_level->addItem(tr("Level %1").arg(l), l);
        m_level->setCurrentIndex(std::max(0, m_level->findData(current)));
        m_level->setProperty("keys", levelKeys);
    }
    const QStringList categories = m_model->categories();
    if (m_category->property("keys").toStringList() != categories || m_category->count() == 0) {
        const QString current = m_category->currentData().toString();
        QSignalBlocker block(m_category);
        m_category->clear();
        m_category->addItem(tr("All categories"), QString());
        for (const QString& c : categories)
            m_category->addItem(c, c);
        m_category->setCurrentIndex(std::max(0, m_category->findData(current)));
        m_category->setProperty("keys", categories);
    }
}

void FilterMatrixView::updateCounts() {
    const int total = m_model->rowCount();
    QString text = tr("%1 tasks, <b>%2 flagged</b>, %3 failed")
                       .arg(total)
                       .arg(m_model->anyFlagCount())
                       .arg(m_model->errorCount());
    if (m_proxy->rowCount() != total) text += tr(" \u2014 showing %1").arg(m_proxy->rowCount());
    m_counts->setText(text);
}

void FilterMatrixView::updateEmptyState() {
    m_stack->setCurrentIndex(m_model->rowCount() == 0 ? 1 : 0);
}
