// SPDX-License-Identifier: MIT
#include "timingchart.h"

#include <algorithm>
#include <cmath>

TimingChart::TimingChart(QWidget* parent)
    : ChartWidget(tr("Timing distribution"), parent)
{
    showMessage(tr("No kernel selected"));
}

void TimingChart::setVariant(const ks::TaskBench* task, int variant)
{
    if (!task) {
        setTitle(tr("Timing distribution"));
        showMessage(tr("No kernels for this task"));
        return;
    }
    const ks::VariantResult* v =
        variant >= 0 && variant < int(task->variants.size()) ? &task->variants[static_cast<size_t>(variant)] : nullptr;
    struct Series {
        QString name;
        const ks::TimingStats* timing;
        QColor color;
    };
    std::vector<Series> series{{tr("PyTorch eager"), &task->baseline, QColor(0x75, 0x75, 0x75)}};
    if (v)
        series.push_back({QStringLiteral("v%1 %2").arg(v->version).arg(QString::fromStdString(v->name)), &v->timing,
                          v->validation.run && !v->validation.passed ? QColor(0xe5, 0x39, 0x35) : QColor(0x42, 0x85, 0xf4)});
    double lo = INFINITY, hi = 0;
    for (const auto& s : series)
        for (double x : s.timing->samplesMs)
            if (x > 0) {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
    setTitle(v ? tr("Timing distribution: %1, %2").arg(QString::fromStdString(task->taskId), series.back().name)
               : tr("Timing distribution: %1 baseline").arg(QString::fromStdString(task->taskId)));
    if (!(hi > 0)) {
        showMessage(tr("No timing samples stored for this kernel"));
        return;
    }
    resetPlot();
    if (!(hi > lo)) {
        lo /= 1.1;
        hi *= 1.1;
    }
    // Bins equal in log(time): variants can be 100x apart and both need visible shape.
    const int bins = 48;
    const double l0 = std::log10(lo), l1 = std::log10(hi) + 1e-9, step = (l1 - l0) / bins;
    double maxCount = 0;
    for (const auto& s : series) {
        QVector<double> keys, counts(bins + 2, 0.0);
        for (int i = 0; i < bins + 2; ++i)
            keys << std::pow(10.0, l0 + (i - 0.5) * step);
        for (double x : s.timing->samplesMs)
            if (x > 0)
                counts[std::clamp(int((std::log10(x) - l0) / step), 0, bins - 1) + 1] += 1;
        maxCount = std::max(maxCount, *std::max_element(counts.begin(), counts.end()));
        auto* g = addGraph();
        g->setData(keys, counts, true);
        g->setLineStyle(QCPGraph::lsStepCenter);
        g->setPen(QPen(s.color, 1.5));
        QColor fill = s.color;
        fill.setAlpha(70);
        g->setBrush(fill);
        g->setName(tr("%1 (median %2 ms, n=%3)").arg(s.name).arg(s.timing->medianMs, 0, 'g', 3).arg(s.timing->samplesMs.size()));
        auto* median = new QCPItemStraightLine(this);
        median->point1->setCoords(s.timing->medianMs, 0);
        median->point2->setCoords(s.timing->medianMs, 1);
        median->setPen(QPen(s.color.darker(130), 1.2, Qt::DashLine));
    }
    xAxis->setScaleType(QCPAxis::stLogarithmic);
    xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    xAxis->setRange(lo / 1.3, hi * 1.3);
    xAxis->setLabel(tr("time per call (ms, log)"));
    yAxis->setRange(0, maxCount * 1.15);
    yAxis->setLabel(tr("samples"));
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), font().pointSize() - 1));
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    setHasData(true);
    rememberHomeRange();
    replot(rpQueuedReplot);
}
