// SPDX-License-Identifier: MIT
#pragma once
// Timing distribution of one kernel variant against the eager baseline: histograms of the
// stored timing samples on a log time axis, with the medians marked.

#include "chartwidget.h"

#include <ks/core/benchresults.h>

class TimingChart : public ChartWidget
{
    Q_OBJECT
public:
    explicit TimingChart(QWidget* parent = nullptr);

    // variant: index into task.variants; -1 shows the baseline alone.
    void setVariant(const ks::TaskBench* task, int variant);
};
