// SPDX-License-Identifier: MIT
#include "summaryview.h"
#include "summarychart.h"

#include <models/runinfomodel.h>
#include <models/summarymodel.h>

#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

SummaryView::SummaryView(SummaryModel* summary, RunInfoModel* runInfo, QWidget* parent)
    : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto makeTable = [](QAbstractItemModel* model, const QString& name) {
        auto* table = new QTableView;
        table->setObjectName(name);
        table->setModel(model);
        table->verticalHeader()->setVisible(false);
        table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table->setWordWrap(false);
        return table;
    };
    m_counts = makeTable(summary, QStringLiteral("summaryTable"));
    m_counts->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* info = makeTable(runInfo, QStringLiteral("runInfoTable"));
    info->horizontalHeader()->setStretchLastSection(true);
    info->setColumnWidth(0, 180);

    m_chart = new SummaryChart;
    m_chart->setObjectName(QStringLiteral("summaryChart"));
    m_chart->setModel(summary);

    auto* left = new QSplitter(Qt::Vertical);
    left->addWidget(m_counts);
    left->addWidget(info);
    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("summarySplitter"));
    split->addWidget(left);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split);
}
