// SPDX-License-Identifier: MIT
#include "timingchart.h"

#include <models/resultsutil.h>

#include <algorithm>
#include <cmath>

TimingChart::TimingChart(QWidget* parent) : ChartWidget(tr("Timing distribution"), parent) {
    showMessage(tr("No kernel selected"));
}

void TimingChart::setVariant(const ks::TaskBench* task, int variant) {
    if (!task) {
        setTitle(tr("Timing distribution"));
        showMessage(tr("No kernels for this task"));
        return;
    }
    const ks::VariantResult* v = variant >= 0 && variant < int(task->variants.size())
                                     ? &task->variants[static_cast<size_t>(variant)]
                                     : nullptr;
    const ks::TimingStats& t = v ? v->timing : task->baseline;
    const QString name = v ? ResultsUtil::variantLabel(*task, *v) : tr("PyTorch eager");
    // A cheat's or a failure's times are drawn in red, like its bar: not the task's work.
    const std::string verdict = v ? ks::variantVerdict(*v) : std::string();
    const bool failed = verdict == "invalid" || verdict == "cheat" || verdict == "failed";
    const QColor color = !v       ? QColor(0x75, 0x75, 0x75)
                         : failed ? QColor(0xe5, 0x39, 0x35)
                                  : QColor(0x42, 0x85, 0xf4);
    setTitle(tr("Timing distribution: %1, %2").arg(QString::fromStdString(task->taskId), name));
    std::vector<double> samples;
    for (double x : t.samplesMs)
        if (std::isfinite(x) && x > 0) samples.push_back(x);
    if (samples.empty()) {
        const bool neverRan = verdict == "compile error" || verdict == "refused";
        showMessage(
            neverRan ? tr("Not timed (%1): %2")
                           .arg(QString::fromStdString(verdict), ResultsUtil::verdictDetail(*v))
            : v && !v->error.empty() ? tr("Not timed: %1").arg(QString::fromStdString(v->error))
                                     : tr("No timing samples stored for this kernel"));
        return;
    }
    resetPlot();
    std::sort(samples.begin(), samples.end());
    // Bin edges from the 1st to 99th percentile: one slow outlier (a context switch) would
    // otherwise squeeze the whole distribution into one bin. Outliers go to the edge bins.
    auto pct = [&](double p) {
        return samples[static_cast<size_t>(p * double(samples.size() - 1))];
    };
    double lo = pct(0.01), hi = pct(0.99);
    if (!(hi > lo)) {
        lo = samples.front() * 0.98;
        hi = samples.back() * 1.02 + 1e-9;
    }
    const int bins = std::clamp(int(std::sqrt(double(samples.size())) * 2), 10, 60);
    const double width = (hi - lo) / bins;
    QVector<double> keys(bins), counts(bins, 0.0);
    for (int i = 0; i < bins; ++i)
        keys[i] = lo + (i + 0.5) * width;
    for (double x : samples)
        counts[std::clamp(int((x - lo) / width), 0, bins - 1)] += 1;
    auto* bars = new QCPBars(xAxis, yAxis);
    bars->setData(keys, counts, true);
    bars->setWidth(width);
    bars->setPen(QPen(color.darker(150)));
    bars->setBrush(color);
    bars->removeFromLegend();
    const double maxCount = *std::max_element(counts.begin(), counts.end());

    // Interquartile range as a band, the median as a line: what the speedup's error bar uses.
    if (t.q1Ms > 0 && t.q3Ms > 0) {
        auto* band = new QCPItemRect(this);
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(t.q1Ms, 0);
        band->bottomRight->setCoords(t.q3Ms, 1);
        band->setPen(Qt::NoPen);
        band->setBrush(QColor(0xff, 0xb3, 0x00, 45));
        band->setLayer(QStringLiteral("background"));
    }
    if (t.medianMs > 0) {
        auto* median = new QCPItemStraightLine(this);
        median->point1->setCoords(t.medianMs, 0);
        median->point2->setCoords(t.medianMs, 1);
        median->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
    }
    auto* label = new QCPItemText(this);
    label->position->setType(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0.98, 0.03);
    label->setPositionAlignment(Qt::AlignTop | Qt::AlignRight);
    label->setTextAlignment(Qt::AlignRight);
    QString text = tr("median %1 ms (dashed)\nIQR %2 ms (shaded)\n%3 samples of %4 runs")
                       .arg(t.medianMs, 0, 'g', 4)
                       .arg(t.iqrMs(), 0, 'g', 3)
                       .arg(samples.size())
                       .arg(t.runs);
    if (v && std::isfinite(v->speedup))
        text += tr("\nspeedup %1x over eager (%2 ms)")
                    .arg(v->speedup, 0, 'g', 3)
                    .arg(task->baseline.medianMs, 0, 'g', 3);
    if (failed) text += tr("\n\u2717 failed validation");
    label->setText(text);
    label->setBrush(QColor(255, 255, 255, 220));
    label->setPadding(QMargins(4, 2, 4, 2));
    label->setColor(failed ? QColor(0xb7, 0x1c, 0x1c) : QColor(0x21, 0x21, 0x21));

    xAxis->setRange(lo - width, hi + width);
    xAxis->setLabel(tr("time per call (ms)"));
    yAxis->setRange(0, maxCount * 2.2); // room for the label above the bars
    yAxis->setLabel(tr("samples"));
    setHasData(true);
    rememberHomeRange();
    replot(rpQueuedReplot);
}
