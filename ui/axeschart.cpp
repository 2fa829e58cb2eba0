// SPDX-License-Identifier: MIT
#include "axeschart.h"

#include <algorithm>
#include <cmath>

AxesChart::AxesChart(QWidget* parent) : ChartWidget(tr("Per-axis uniformity"), parent) {
    showMessage(tr("Select a task"));
}

void AxesChart::setTask(const ks::TaskResult* task, double threshold) {
    m_threshold = threshold;
    m_valid = task && task->axes.run && !task->axes.perAxis.empty();
    m_values.clear();
    m_sizes.clear();
    if (m_valid) {
        m_values = task->axes.perAxis;
        m_sizes.push_back(task->seeds);
        for (auto s : task->outputShape)
            m_sizes.push_back(s);
    }
    scheduleRebuild();
}

void AxesChart::setThreshold(double threshold) {
    if (threshold == m_threshold) return;
    m_threshold = threshold;
    if (m_valid) scheduleRebuild();
}

void AxesChart::rebuild() {
    if (!m_valid) {
        showMessage(tr("Axes filter not run for this task"));
        return;
    }
    resetPlot();
    const double t = m_threshold;
    double minPositive = t > 0 ? t : 1.0, maxValue = t > 0 ? t : 1.0;
    for (double v : m_values)
        if (std::isfinite(v) && v > 0) {
            minPositive = std::min(minPositive, v);
            maxValue = std::max(maxValue, v);
        }
    // Zero std (a constant axis) cannot sit on a log axis: draw it at a floor well below the line.
    const double floor = minPositive / 30;

    auto makeBars = [&](const QColor& pen, const QColor& brush, const QString& name,
                        Qt::BrushStyle style) {
        auto* b = new QCPBars(xAxis, yAxis);
        b->setWidth(0.6);
        b->setBaseValue(floor / 3); // QCPBars draw base .. base + value: values are offset below
        b->setPen(QPen(pen));
        b->setBrush(QBrush(brush, style));
        b->setName(name);
        return b;
    };
    auto* pass = makeBars(QColor(0x2e, 0x7d, 0x32), QColor(0x81, 0xc7, 0x84), tr("varies"),
                          Qt::SolidPattern);
    auto* flag = makeBars(QColor(0xb7, 0x1c, 0x1c), QColor(0xef, 0x53, 0x50),
                          tr("uniform (flagged)"), Qt::SolidPattern);
    auto* nan = makeBars(QColor(0x75, 0x75, 0x75), QColor(0x9e, 0x9e, 0x9e),
                         tr("NaN (size-1 axis)"), Qt::BDiagPattern);

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (size_t a = 0; a < m_values.size(); ++a) {
        const double v = m_values[a];
        const double key = double(a);
        const QString size = a < m_sizes.size() ? QString::number(m_sizes[a]) : QStringLiteral("?");
        ticker->addTick(key, a == 0 ? tr("seeds\n(%1)").arg(size)
                                    : tr("dim %1\n(%2)").arg(a - 1).arg(size));
        if (std::isnan(v)) {
            nan->addData(key, (t > 0 ? t : maxValue) - floor / 3);
            continue;
        }
        const double shown = v > 0 ? v : floor;
        (ks::flaggedBelow(v, t) ? flag : pass)->addData(key, shown - floor / 3);
        auto* label = new QCPItemText(this);
        label->position->setCoords(key, shown);
        label->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
        label->setText(v > 0 ? QString::number(v, 'g', 3) : QStringLiteral("0"));
        label->setFont(QFont(font().family(), font().pointSize() - 1));
    }
    xAxis->setTicker(ticker);
    xAxis->setRange(-0.6, double(m_values.size()) - 0.4);
    xAxis->setLabel(tr("axis of [seeds, *output]"));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    yAxis->setRange(floor / 3, maxValue * 200); // headroom: the legend sits above the bars
    yAxis->setLabel(tr("max std along axis"));

    auto* line = new QCPItemStraightLine(this);
    line->point1->setCoords(0, t);
    line->point2->setCoords(1, t);
    line->setPen(QPen(QColor(0xd3, 0x2f, 0x2f), 1.5, Qt::DashLine));
    auto* lineLabel = new QCPItemText(this);
    lineLabel->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    lineLabel->position->setCoords(0.99, t);
    lineLabel->setPositionAlignment(Qt::AlignBottom | Qt::AlignRight);
    lineLabel->setText(tr("threshold %1").arg(t));
    lineLabel->setColor(QColor(0xd3, 0x2f, 0x2f));

    // Only the kinds present go into the legend.
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), font().pointSize() - 1));
    for (auto* b : {pass, flag, nan})
        if (b->data()->isEmpty()) b->removeFromLegend();
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    setHasData(true);
    rememberHomeRange();
    replot(rpQueuedReplot);
}
