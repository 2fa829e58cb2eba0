// SPDX-License-Identifier: MIT
#include "summarychart.h"

#include <models/summarymodel.h>

#include <ks/core/criteria.h>

#include <algorithm>
#include <vector>

SummaryChart::SummaryChart(QWidget* parent)
    : ChartWidget(tr("Flagged tasks per criterion and level"), parent) {
    showMessage(tr("No results"));
}

void SummaryChart::setModel(SummaryModel* model) {
    m_model = model;
    connect(model, &QAbstractItemModel::dataChanged, this, &SummaryChart::scheduleRebuild);
    connect(model, &QAbstractItemModel::modelReset, this, &SummaryChart::scheduleRebuild);
    scheduleRebuild();
}

void SummaryChart::rebuild() {
    if (!m_model || m_model->count(SummaryModel::TaskRow, SummaryModel::TotalColumn) == 0) {
        showMessage(tr("No results"));
        return;
    }
    resetPlot();
    auto* group = new QCPBarsGroup(this);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    struct Level {
        int column;
        QString name;
        QColor color;
    };
    const Level levels[] = {
        {SummaryModel::Level1Column, tr("Level 1"), QColor(0x42, 0x85, 0xf4)},
        {SummaryModel::Level2Column, tr("Level 2"), QColor(0xfb, 0xbc, 0x05)},
        {SummaryModel::Level3Column, tr("Level 3"), QColor(0x34, 0xa8, 0x53)},
        {SummaryModel::OtherLevelColumn, tr("Extra"), QColor(0x9c, 0x27, 0xb0)}};
    // Every criterion (rows 0..CriterionCount-1), then any flag and failed.
    std::vector<int> rows;
    for (int c = 0; c < ks::CriterionCount; ++c) rows.push_back(c);
    rows.push_back(SummaryModel::AnyFlagRow);
    rows.push_back(SummaryModel::ErrorRow);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < int(rows.size()); ++i)
        ticker->addTick(i, m_model->index(rows[i], SummaryModel::LabelColumn)
                               .data()
                               .toString()
                               .replace(QLatin1Char(' '), QLatin1Char('\n')));
    double maxCount = 1;
    for (const auto& level : levels) {
        if (m_model->count(SummaryModel::TaskRow, level.column) == 0)
            continue; // no tasks of this level in the file: no empty legend entry
        auto* bars = new QCPBars(xAxis, yAxis);
        bars->setWidth(0.16);
        bars->setBarsGroup(group);
        bars->setPen(QPen(level.color.darker(140)));
        bars->setBrush(level.color);
        bars->setName(tr("%1 (%2 tasks)")
                          .arg(level.name)
                          .arg(m_model->count(SummaryModel::TaskRow, level.column)));
        for (int i = 0; i < int(rows.size()); ++i) {
            const int c = m_model->count(rows[i], level.column);
            bars->addData(i, c);
            maxCount = std::max(maxCount, double(c));
        }
    }
    for (int i = 0; i < int(rows.size()); ++i) {
        auto* total = new QCPItemText(this);
        total->position->setCoords(i, maxCount * 1.12);
        total->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
        total->setText(tr("%1 of %2")
                           .arg(m_model->count(rows[i], SummaryModel::TotalColumn))
                           .arg(m_model->count(SummaryModel::TaskRow, SummaryModel::TotalColumn)));
    }
    xAxis->setTicker(ticker);
    xAxis->setRange(-0.6, double(rows.size()) - 0.4);
    yAxis->setRange(0, maxCount * 1.45);
    yAxis->setLabel(tr("tasks"));
    yAxis->ticker()->setTickCount(std::min(6, int(maxCount) + 1));
    legend->setVisible(true);
    // One row across the top: with eight groups of bars a legend box would cover some of them.
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignHCenter);
    setHasData(true);
    rememberHomeRange();
    replot(rpQueuedReplot);
}
