// SPDX-License-Identifier: MIT
#include "filtermatrixview.h"

#include "celldelegate.h"
#include "columnfitter.h"

#include <models/filtermatrixmodel.h>
#include <models/filterproxymodel.h>

#include <ks/core/criteria.h>

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>

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
    // Bounded, so that a suite's long category names never widen the window past a small screen.
    m_category->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_category->setMinimumContentsLength(12);
    m_flaggedOnly = new QCheckBox(tr("Flagged only"));
    m_flaggedOnly->setObjectName(QStringLiteral("flaggedOnly"));
    m_flaggedBy = new QComboBox;
    m_flaggedBy->setObjectName(QStringLiteral("flaggedBy"));
    m_flaggedBy->setToolTip(tr("Which flag \"Flagged only\" shows: any, or one criterion's"));
    m_flaggedBy->addItem(tr("by any criterion"), -1);
    for (const auto& c : ks::criteria())
        m_flaggedBy->addItem(tr("by %1").arg(QString::fromUtf8(c.label)),
                             static_cast<int>(c.criterion));
    m_flaggedBy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_flaggedBy->setMinimumContentsLength(16);
    m_counts = new QLabel;
    m_counts->setObjectName(QStringLiteral("counts"));
    // Fixed width and right-aligned, so that updating the counts never re-lays out the window.
    m_counts->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_counts->setFixedWidth(m_counts->fontMetrics().horizontalAdvance(
        QStringLiteral("0000 tasks, 0000 flagged, 0000 failed \u2014 showing 0000")));
    m_search->setMinimumWidth(
        m_search->fontMetrics().horizontalAdvance(QStringLiteral("Search id, name")));
    bar->addWidget(m_search, 2);
    bar->addWidget(m_level);
    bar->addWidget(m_category);
    bar->addWidget(m_flaggedOnly);
    bar->addWidget(m_flaggedBy);
    m_rangesButton = new QToolButton;
    m_rangesButton->setObjectName(QStringLiteral("metricRanges"));
    m_rangesButton->setPopupMode(QToolButton::InstantPopup);
    m_rangesButton->setToolTip(tr("Show only the tasks whose metrics lie in a range (a min, a max "
                                  "or both per criterion); combined with the other filters"));
    auto* rangesMenu = new QMenu(m_rangesButton);
    auto* panel = new QWidgetAction(rangesMenu);
    panel->setDefaultWidget(createRangesPanel());
    rangesMenu->addAction(panel);
    m_rangesButton->setMenu(rangesMenu);
    bar->addWidget(m_rangesButton);
    updateRangesButton();
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
    // Names are long (KernelBench's "13_ConvTranspose3d_Mean_Add_..."): they get the spare width,
    // at least enough to read them on a 1280 px screen, at most what a long name needs; past that
    // the metric columns widen (a 1920 px screen).
    QList<int> metricColumns;
    for (int c = FilterMatrixModel::FirstCriterionColumn; c <= FilterMatrixModel::AnyFlagColumn;
         ++c)
        metricColumns << c;
    auto* fitter =
        new ColumnFitter(m_table, FilterMatrixModel::NameColumn, 160, 440, metricColumns);
    // Where the one-line headers do not fit (a 1280 px window), the criteria's counts go on a
    // second header line and the metric columns take the width of their cells, not their titles.
    QHash<int, int> oneLine, twoLine;
    int oneLineTotal = 0;
    for (int c = 0; c < FilterMatrixModel::ColumnCount; ++c) {
        if (c == FilterMatrixModel::NameColumn) continue;
        oneLine.insert(c, m_table->columnWidth(c));
        oneLineTotal += m_table->columnWidth(c);
    }
    for (int c : metricColumns)
        twoLine.insert(c, c == FilterMatrixModel::BaselineInefficiencyColumn ||
                                  c == FilterMatrixModel::RedundantComputationColumn
                              ? 150
                          : c == FilterMatrixModel::AnyFlagColumn ? 80
                                                                  : 92);
    fitter->setBeforeFit([this, fitter, oneLine, twoLine, oneLineTotal](int width) {
        const bool narrow = width < oneLineTotal + 160;
        m_proxy->setTwoLineHeaders(narrow);
        for (auto it = oneLine.begin(); it != oneLine.end(); ++it)
            if (twoLine.contains(it.key()))
                fitter->setBaseWidth(it.key(), narrow ? twoLine.value(it.key()) : it.value());
    });
    // Right-click on a criterion's title: flagged only by it, a range on its metric.
    m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table->horizontalHeader(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint& pos) {
                QHeaderView* header = m_table->horizontalHeader();
                if (QMenu* menu = headerContextMenu(header->logicalIndexAt(pos))) {
                    menu->setAttribute(Qt::WA_DeleteOnClose);
                    menu->popup(header->mapToGlobal(pos));
                }
            });
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

QWidget* FilterMatrixView::createRangesPanel() {
    auto* panel = new QWidget;
    panel->setObjectName(QStringLiteral("metricRangesPanel"));
    auto* grid = new QGridLayout(panel);
    grid->setContentsMargins(8, 6, 8, 6);
    grid->addWidget(new QLabel(tr("<b>Metric</b>")), 0, 0);
    grid->addWidget(new QLabel(tr("<b>min</b>")), 0, 1);
    grid->addWidget(new QLabel(tr("<b>max</b>")), 0, 2);
    int row = 1;
    for (const auto& c : ks::criteria()) {
        const auto i = static_cast<size_t>(c.criterion);
        auto* label = new QLabel(
            tr("%1 <span style='color:#666'>(%2)</span>")
                .arg(QString::fromUtf8(c.label), QString::fromUtf8(c.metricLabel).toHtmlEscaped()));
        auto make = [&](const char* which) {
            auto* e = new QLineEdit;
            e->setObjectName(
                QStringLiteral("range%1_%2").arg(QLatin1String(which), QLatin1String(c.key)));
            e->setPlaceholderText(tr("any"));
            e->setClearButtonEnabled(true);
            e->setFixedWidth(e->fontMetrics().horizontalAdvance(QStringLiteral("0.000000001")) +
                             28);
            // Applied on every edit: the proxy re-filters 250 rows in well under a frame.
            connect(e, &QLineEdit::textChanged, this, [this, c] { applyRange(c.criterion); });
            return e;
        };
        m_rangeMin[i] = make("Min");
        m_rangeMax[i] = make("Max");
        grid->addWidget(label, row, 0);
        grid->addWidget(m_rangeMin[i], row, 1);
        grid->addWidget(m_rangeMax[i], row, 2);
        ++row;
    }
    auto* note = new QLabel(tr("Bounds are inclusive; a task whose metric is not known (not run, "
                               "failed) is hidden by any range on it."));
    note->setWordWrap(true);
    grid->addWidget(note, row, 0, 1, 3);
    auto* clear = new QPushButton(tr("Clear All Ranges"));
    clear->setObjectName(QStringLiteral("clearRanges"));
    connect(clear, &QPushButton::clicked, this, &FilterMatrixView::clearMetricRanges);
    grid->addWidget(clear, row + 1, 2);
    return panel;
}

void FilterMatrixView::applyRange(ks::Criterion c) {
    const auto i = static_cast<size_t>(c);
    FilterProxyModel::MetricRange r;
    auto parse = [this](QLineEdit* e, std::optional<double>& out) {
        const QString text = e->text().trimmed();
        bool ok = true;
        if (!text.isEmpty()) {
            const double v = QLocale::c().toDouble(text, &ok);
            if (ok && v == v)
                out = v;
            else
                ok = false;
        }
        // A bound that does not parse is ignored, and says so in red rather than silently.
        e->setStyleSheet(ok ? QString() : QStringLiteral("background: #ffcdd2"));
        e->setToolTip(ok ? QString() : tr("Not a number: this bound is ignored"));
    };
    parse(m_rangeMin[i], r.min);
    parse(m_rangeMax[i], r.max);
    m_proxy->setMetricRange(c, r);
    updateRangesButton();
}

void FilterMatrixView::setMetricRange(ks::Criterion c, const QString& min, const QString& max) {
    const auto i = static_cast<size_t>(c);
    {
        QSignalBlocker a(m_rangeMin[i]), b(m_rangeMax[i]);
        m_rangeMin[i]->setText(min);
        m_rangeMax[i]->setText(max);
    }
    applyRange(c);
}

void FilterMatrixView::clearMetricRanges() {
    for (size_t i = 0; i < m_rangeMin.size(); ++i) {
        QSignalBlocker a(m_rangeMin[i]), b(m_rangeMax[i]);
        m_rangeMin[i]->clear();
        m_rangeMax[i]->clear();
        m_rangeMin[i]->setStyleSheet({});
        m_rangeMax[i]->setStyleSheet({});
    }
    m_proxy->clearMetricRanges();
    updateRangesButton();
}

void FilterMatrixView::editRange(ks::Criterion c) {
    QMenu* menu = m_rangesButton->menu();
    menu->popup(m_rangesButton->mapToGlobal(QPoint(0, m_rangesButton->height())));
    QLineEdit* edit = m_rangeMin[static_cast<size_t>(c)];
    edit->setFocus(Qt::PopupFocusReason);
    edit->selectAll();
}

QMenu* FilterMatrixView::headerContextMenu(int section) {
    const auto c = FilterMatrixModel::criterionOf(section);
    if (!c) return nullptr;
    const QString label = QString::fromUtf8(ks::criterionInfo(*c).label);
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("headerContextMenu"));
    auto* flagged = menu->addAction(tr("Flagged Only by %1").arg(label), this, [this, c] {
        m_flaggedBy->setCurrentIndex(m_flaggedBy->findData(static_cast<int>(*c)));
        m_flaggedOnly->setChecked(true);
    });
    flagged->setObjectName(QStringLiteral("headerFlaggedOnly"));
    auto* range = menu->addAction(
        tr("Range on %1\u2026").arg(QString::fromUtf8(ks::criterionInfo(*c).metricLabel)), this,
        [this, c] { editRange(*c); });
    range->setObjectName(QStringLiteral("headerRange"));
    auto* clear = menu->addAction(tr("Clear Range on %1").arg(label), this,
                                  [this, c] { setMetricRange(*c, {}, {}); });
    clear->setObjectName(QStringLiteral("headerClearRange"));
    clear->setEnabled(m_proxy->metricRange(*c).active());
    return menu;
}

void FilterMatrixView::updateRangesButton() {
    const int n = m_proxy->activeRangeCount();
    m_rangesButton->setText(n ? tr("Ranges (%1)").arg(n) : tr("Ranges"));
    QStringList set;
    for (const auto& c : ks::criteria())
        if (const auto r = m_proxy->metricRange(c.criterion); r.active())
            set << FilterProxyModel::rangeDescription(c.criterion, r);
    m_rangesButton->setStatusTip(set.join(QStringLiteral("; ")));
    // Bold while ranges hide rows, so a short matrix is never a mystery.
    QFont f = m_rangesButton->font();
    f.setBold(n > 0);
    m_rangesButton->setFont(f);
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
