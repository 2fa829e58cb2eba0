// SPDX-License-Identifier: MIT
#pragma once
// Per-axis uniformity: one bar per axis of the stacked [S, *out] outputs (axis 0 = seeds), the
// bar being the largest std along that axis, on a log scale with the threshold line. A bar under
// the line means the output is uniform along that whole axis. NaN (size-1 axes) is drawn apart.

#include "chartwidget.h"

#include <ks/core/results.h>

class AxesChart : public ChartWidget {
    Q_OBJECT
  public:
    explicit AxesChart(QWidget* parent = nullptr);

    void setTask(const ks::TaskResult* task, double threshold);
    void setThreshold(double threshold);

  protected:
    void rebuild() override;

  private:
    std::vector<double> m_values;
    std::vector<int64_t> m_sizes;
    double m_threshold = 0.01;
    bool m_valid = false;
};
