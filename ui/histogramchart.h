// SPDX-License-Identifier: MIT
#pragma once
// A stored ks::Histogram as bars, with the criterion's threshold drawn on it: either the
// +-t band of the output-range filter, or a vertical line (std histogram). The threshold can
// change without new data, so re-thresholding only moves the marker.

#include "chartwidget.h"

#include <ks/core/results.h>

class HistogramChart : public ChartWidget {
    Q_OBJECT
  public:
    enum class Marker { Band, Line };

    HistogramChart(const QString& title, Marker marker, QWidget* parent = nullptr);

    void setHistogram(const ks::Histogram& histogram, double threshold, const QString& xLabel);
    void setThreshold(double threshold);
    void setLogCount(bool on);
    bool logCount() const { return m_logCount; }
    double threshold() const { return m_threshold; }

  protected:
    void rebuild() override;

  private:
    Marker m_marker;
    ks::Histogram m_histogram;
    QString m_xLabel;
    double m_threshold = 0.01;
    bool m_logCount = false;
    bool m_valid = false;
};
