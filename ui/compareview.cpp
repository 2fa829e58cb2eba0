// SPDX-License-Identifier: MIT
#include "compareview.h"
#include "celldelegate.h"
#include "columnfitter.h"

#include <models/comparemodel.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

CompareView::CompareView(CompareModel* model, QWidget* parent) : QWidget(parent), m_model(model) {
    setObjectName(QStringLiteral("compareView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    // A text browser, not a label: a wrapping rich-text label whose text changes (the counts, on
    // every re-threshold) asks the whole window to lay itself out again, and that was most of a
    // re-threshold with this view open. The browser's size does not follow its text.
    m_summary = new QTextBrowser;
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setFrameShape(QFrame::NoFrame);
    m_summary->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_summary->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Three lines for two files; fitColumns() adds one per file (up to six), the browser scrolls
    // past that.
    m_summary->setFixedHeight(m_summary->fontMetrics().lineSpacing() * 3 +
                              2 * int(m_summary->document()->documentMargin()) + 2);
    m_summary->document()->setDocumentMargin(1);
    QPalette pal = m_summary->palette();
    pal.setColor(QPalette::Base, pal.color(QPalette::Window));
    m_summary->setPalette(pal);
    layout->addWidget(m_summary);

    auto* bar = new QHBoxLayout;
    m_differingOnly = new QCheckBox(tr("Tasks whose flags differ only"));
    m_differingOnly->setObjectName(QStringLiteral("differingOnly"));
    m_differingOnly->setChecked(m_model->differingOnly());
    m_thresholdsB = new QComboBox;
    m_thresholdsB->setObjectName(QStringLiteral("compareThresholdsB"));
    m_thresholdsB->addItem(tr("its file's thresholds"), QStringLiteral("file"));
    m_thresholdsB->addItem(tr("A's thresholds (the panel's)"), QStringLiteral("a"));
    for (const auto& name : ks::builtinProfileNames())
        m_thresholdsB->addItem(tr("profile %1").arg(QString::fromStdString(name)),
                               QString::fromStdString(name));
    m_thresholdsB->setToolTip(tr("A is judged by the thresholds in force in the panel; the other "
                                 "files by these (\"its file's\": each by its own). Two profiles "
                                 "on one run: compare a file with itself."));
    m_add = new QPushButton(tr("Add File\u2026"));
    m_add->setObjectName(QStringLiteral("compareAdd"));
    m_add->setToolTip(tr("Compare one more results file with A: another column per criterion"));
    m_remove = new QToolButton;
    m_remove->setObjectName(QStringLiteral("compareRemove"));
    m_remove->setText(tr("Remove"));
    m_remove->setPopupMode(QToolButton::InstantPopup);
    m_remove->setMenu(new QMenu(m_remove));
    m_close = new QPushButton(tr("Close Comparison"));
    m_close->setObjectName(QStringLiteral("closeComparison"));
    bar->addWidget(m_differingOnly);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Others judged by:")));
    bar->addWidget(m_thresholdsB);
    bar->addStretch(1);
    bar->addWidget(m_add);
    bar->addWidget(m_remove);
    bar->addWidget(m_close);
    layout->addLayout(bar);

    m_stack = new QStackedWidget;
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CompareModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setItemDelegate(new CellDelegate(m_table)); // re-thresholding repaints every cell
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // A's order, then B's extras, until sorted
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // The name takes the width the shown criteria leave, up to a long name's.
    m_fitter = new ColumnFitter(m_table, CompareModel::NameColumn, 180, 420);
    m_stack->addWidget(m_table);
    auto* empty = new QWidget;
    auto* emptyLayout = new QVBoxLayout(empty);
    m_empty = new QLabel;
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    auto* open = new QPushButton(tr("Compare With\u2026"));
    open->setObjectName(QStringLiteral("compareOpen"));
    emptyLayout->addStretch();
    emptyLayout->addWidget(m_empty);
    emptyLayout->addWidget(open, 0, Qt::AlignCenter);
    emptyLayout->addStretch();
    m_stack->addWidget(empty);
    layout->addWidget(m_stack, 1);

    connect(m_differingOnly, &QCheckBox::toggled, m_model, &CompareModel::setDifferingOnly);
    connect(m_thresholdsB, &QComboBox::currentIndexChanged, this, &CompareView::thresholdsBChanged);
    connect(m_close, &QPushButton::clicked, this, &CompareView::closeRequested);
    connect(m_add, &QPushButton::clicked, this, &CompareView::addRequested);
    connect(open, &QPushButton::clicked, this, &CompareView::openRequested);
    connect(m_model, &CompareModel::comparisonChanged, this, &CompareView::update);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (const QString id = currentTaskId(); !id.isEmpty()) emit taskActivated(id);
    });
    update();
}

ks::Thresholds CompareView::thresholdsB(const ks::Thresholds& a,
                                        const ks::Thresholds& bFile) const {
    const QString choice = m_thresholdsB->currentData().toString();
    if (choice == QLatin1String("a")) return a;
    if (choice == QLatin1String("file")) return bFile;
    if (const auto p = ks::builtinProfile(choice.toStdString())) return *p;
    return bFile;
}

QString CompareView::summaryText() const {
    return m_summary->toPlainText();
}

QString CompareView::currentTaskId() const {
    const QModelIndex i = m_table->selectionModel()->currentIndex();
    return i.isValid() ? i.data(CompareModel::TaskIdRole).toString() : QString();
}

bool CompareView::selectTask(const QString& id) {
    const int row = m_model->rowOf(id);
    if (row < 0) return false;
    const QModelIndex i = m_proxy->mapFromSource(m_model->index(row, 0));
    m_table->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect |
                                                      QItemSelectionModel::Rows);
    m_table->scrollTo(i);
    return true;
}

// Widths for the current number of files; a reset with another column count (a file added or
// removed) gives new sections the default width, so they are laid out again then only.
void CompareView::fitColumns() {
    if (m_fittedColumns == m_model->columnCount()) return;
    m_fittedColumns = m_model->columnCount();
    // The summary: a line for A, one per other file, one for the total (set here, on a change of
    // files only: a height that follows the text would re-lay out the window on every edit).
    const int lines =
        std::clamp(2 + m_model->otherCount() + (m_model->otherCount() > 1 ? 1 : 0), 3, 7);
    m_summary->setFixedHeight(m_summary->fontMetrics().lineSpacing() * lines +
                              2 * int(m_summary->document()->documentMargin()) + 2);
    m_table->setColumnWidth(CompareModel::IdColumn, 64);
    m_table->setColumnWidth(CompareModel::PresenceColumn, 70);
    m_table->setColumnWidth(CompareModel::DiffersColumn, 84);
    const QFontMetrics header = m_table->horizontalHeader()->fontMetrics();
    const int sortMark = 24; // room for the sort indicator
    for (const auto& c : ks::criteria()) {
        const bool reason = c.criterion == ks::Criterion::BaselineInefficiency ||
                            c.criterion == ks::Criterion::RedundantComputation;
        const int w = reason ? 150 : 100; // filters 5-6 show a reason ("51.1x diag-matmul")
        // A's column carries the criterion's name: wide enough for "Baseline Inefficiency A (123)".
        const int title =
            header.horizontalAdvance(QString::fromUtf8(c.label) + QStringLiteral(" A (000)")) +
            sortMark;
        m_table->setColumnWidth(m_model->columnOf(c.criterion, CompareModel::Part::A),
                                std::max(w + 20, title));
        for (int k = 0; k < std::max(1, m_model->otherCount()); ++k) {
            m_table->setColumnWidth(m_model->columnOf(c.criterion, CompareModel::Part::B, k), w);
            m_table->setColumnWidth(
                m_model->columnOf(c.criterion, CompareModel::Part::Delta, k),
                header.horizontalAdvance(QStringLiteral("\u03940 (000 differ)")) + sortMark);
        }
    }
}

void CompareView::rebuildRemoveMenu() {
    QMenu* menu = m_remove->menu();
    menu->clear();
    for (int k = 0; k < m_model->otherCount(); ++k) {
        auto* a = menu->addAction(tr("%1: %2").arg(m_model->letterB(k), m_model->nameB(k)), this,
                                  [this, k] { emit removeRequested(k); });
        a->setObjectName(QStringLiteral("compareRemove%1").arg(k));
    }
    m_remove->setEnabled(m_model->otherCount() > 1); // the last one goes with Close
}

void CompareView::update() {
    const bool active = m_model->isActive();
    fitColumns();
    rebuildRemoveMenu();
    if (const QString html = m_model->summaryText(); html != m_summaryHtml) {
        m_summaryHtml = html;
        m_summary->setHtml(html);
    }
    m_summary->setVisible(active);
    m_differingOnly->setEnabled(active);
    m_thresholdsB->setEnabled(active);
    m_add->setEnabled(active);
    m_close->setEnabled(active);
    if (!active) {
        m_empty->setText(
            tr("<h3>No comparison</h3><p>Compare the open results with a second results "
               "file: two devices, two seed counts, two threshold profiles, before and "
               "after a fix. The tasks whose flags differ are listed side by side, with "
               "the metric deltas (as <tt>kernelsieve-cli diff A.json B.json</tt>).</p>"));
    }
    m_stack->setCurrentIndex(active ? 0 : 1);
    // With "differing only", only the criteria whose flags differ somewhere: 25 columns do not fit
    // a window, and the ones that agree everywhere say nothing.
    // Several files: a criterion stays while its flags differ from A's in any of them.
    for (const auto& c : ks::criteria()) {
        const bool hide =
            active && m_model->differingOnly() && m_model->differingAnywhere(c.criterion) == 0;
        const int first = m_model->columnOf(c.criterion, CompareModel::Part::A);
        for (int col = first; col < first + m_model->groupWidth(); ++col)
            m_table->setColumnHidden(col, hide);
    }
    m_fitter->fit(); // the criteria shown changed: the name's share with them
}
