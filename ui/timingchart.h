// SPDX-License-Identifier: MIT
#pragma once
// Timing distribution of one kernel (a variant or the eager baseline): a histogram of the stored
// timing samples with the median and the interquartile range marked, on the kernel's own scale.

#include "chartwidget.h"

#include <ks/core/benchresults.h>

class TimingChart : public ChartWidget {
    Q_OBJECT
  public:
    explicit TimingChart(QWidget* parent = nullptr);

    // variant: index into task.variants; -1 shows the eager baseline.
    void setVariant(const ks::TaskBench* task, int variant);
};
