// SPDX-License-Identifier: MIT
#include "histogramchart.h"

#include <algorithm>
#include <cmath>

HistogramChart::HistogramChart(const QString& title, Marker marker, QWidget* parent)
    : ChartWidget(title, parent), m_marker(marker) {
    showMessage(tr("Select a task"));
}

void HistogramChart::setHistogram(const ks::Histogram& histogram, double threshold,
                                  const QString& xLabel) {
    m_histogram = histogram;
    m_threshold = threshold;
    m_xLabel = xLabel;
    m_valid = !histogram.empty();
    scheduleRebuild();
}

void HistogramChart::setThreshold(double threshold) {
    if (threshold == m_threshold) return;
    m_threshold = threshold;
    if (m_valid) scheduleRebuild();
}

void HistogramChart::setLogCount(bool on) {
    if (on == m_logCount) return;
    m_logCount = on;
    if (m_valid) scheduleRebuild();
}

void HistogramChart::rebuild() {
    if (!m_valid) {
        showMessage(tr("No histogram for this task"));
        return;
    }
    resetPlot();
    const auto& h = m_histogram;
    const int bins = static_cast<int>(h.counts.size());
    const bool constant = !(h.hi > h.lo);
    // A constant output collapses into one bin; give it a visible width around the value.
    const double width = constant ? std::max(std::abs(h.lo) * 0.02, 1e-6) : (h.hi - h.lo) / bins;
    const double lo = constant ? h.lo - width / 2 : h.lo;
    const double hi = constant ? h.lo + width / 2 : h.hi;

    QVector<double> keys, values;
    keys.reserve(bins);
    values.reserve(bins);
    double maxCount = 0;
    for (int i = 0; i < bins; ++i) {
        const double c = double(h.counts[static_cast<size_t>(i)]);
        if (m_logCount && c <= 0) continue; // log(0) has no place on the axis
        keys << (constant ? h.lo : lo + (i + 0.5) * width);
        values << c;
        maxCount = std::max(maxCount, c);
    }
    // QCPBars draws from the base value to base + value, so values are offset by the base.
    const double base = m_logCount ? 0.5 : 0.0;
    for (double& v : values)
        v -= base;
    auto* bars = new QCPBars(xAxis, yAxis);
    bars->setData(keys, values, true);
    bars->setWidth(width);
    bars->setPen(QPen(QColor(0x1f, 0x4e, 0x79)));
    bars->setBrush(QColor(0x5b, 0x9b, 0xd5));
    bars->setName(tr("count"));
    if (m_logCount) {
        bars->setBaseValue(base);
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        yAxis->setRange(0.5, std::max(2.0, maxCount * 2.0));
        yAxis->setLabel(tr("count (log)"));
    } else {
        yAxis->setRange(0, std::max(1.0, maxCount * 1.08));
        yAxis->setLabel(tr("count"));
    }
    xAxis->setLabel(m_xLabel);
    xAxis->ticker()->setTickCount(4); // long labels like 0.00075 collide at the default density

    const double t = m_threshold;
    const double span = hi - lo;
    // The x range follows the data, never the band: a band much wider than the data fills the
    // plot (the finding), and a hairline band in wide data is still marked by its edge lines.
    double xmin = constant ? lo - width * 5 : lo - span * 0.04;
    double xmax = constant ? hi + width * 5 : hi + span * 0.04;
    const QColor flagColor(0xd3, 0x2f, 0x2f);
    auto addLine = [&](double x) {
        auto* line = new QCPItemStraightLine(this);
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setPen(QPen(flagColor, 1.5, Qt::DashLine));
    };
    auto addLabel = [&](const QString& text) {
        auto* label = new QCPItemText(this);
        label->position->setType(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.98, 0.03);
        label->setPositionAlignment(Qt::AlignTop | Qt::AlignRight);
        label->setText(text);
        label->setColor(flagColor);
        label->setBrush(QColor(255, 255, 255, 210));
        label->setPadding(QMargins(3, 2, 3, 2));
    };

    if (m_marker == Marker::Band) {
        // Values inside (-t, t) are "too small to check"; the band shows how much of the output
        // sits in it. When the band dwarfs the data it fills the plot, which is the finding.
        auto* band = new QCPItemRect(this);
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(-t, 0);
        band->bottomRight->setCoords(t, 1);
        band->setPen(Qt::NoPen);
        band->setBrush(QColor(0xd3, 0x2f, 0x2f, 50));
        addLine(-t);
        addLine(t);
        const bool inside = h.lo > -t && h.hi < t && h.nonFinite == 0;
        addLabel(inside ? tr("all values inside the \u00b1%1 band").arg(t)
                        : tr("\u00b1%1 band").arg(t));
    } else {
        addLine(t);
        // Keep the threshold in view when it is near the data; when it is far off, keep the
        // histogram's shape and say on which side the line is (that is the finding).
        const double reach = std::max(span, std::abs(hi)) * 1.5;
        if (t >= lo - reach && t <= hi + reach) {
            xmin = std::min(xmin, t - span * 0.04);
            xmax = std::max(xmax, t + span * 0.04);
            addLabel(tr("threshold %1").arg(t));
        } else if (t > hi) {
            addLabel(tr("threshold %1 \u2192 off to the right:\nevery element is below it").arg(t));
        } else {
            addLabel(tr("\u2190 threshold %1 off to the left:\nevery element is above it").arg(t));
        }
    }
    xAxis->setRange(xmin, xmax);
    if (constant) bars->setWidth((xmax - xmin) / 60); // one visible bar, whatever the final range
    setHasData(!values.isEmpty());
    rememberHomeRange();
    replot(rpQueuedReplot);
}
