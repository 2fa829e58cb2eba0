// SPDX-License-Identifier: MIT
#pragma once
// Flagged tasks per criterion, one bar per level (grouped), read from a SummaryModel so that it
// redraws whenever the counts change (new thresholds, a streamed task, a new file).

#include "chartwidget.h"

class SummaryModel;

class SummaryChart : public ChartWidget {
    Q_OBJECT
  public:
    explicit SummaryChart(QWidget* parent = nullptr);
    void setModel(SummaryModel* model);

  protected:
    void rebuild() override;

  private:
    SummaryModel* m_model = nullptr;
};
