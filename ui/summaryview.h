// SPDX-License-Identifier: MIT
#pragma once
// Counts of flagged tasks per criterion and level (table and chart), and how the run was made:
// device, LibTorch version, preset, seeds.

#include <QWidget>

class RunInfoModel;
class SummaryChart;
class SummaryModel;
class QTableView;

class SummaryView : public QWidget {
    Q_OBJECT
  public:
    SummaryView(SummaryModel* summary, RunInfoModel* runInfo, QWidget* parent = nullptr);

    SummaryChart* chart() const { return m_chart; }
    QTableView* countsTable() const { return m_counts; }

  private:
    SummaryChart* m_chart = nullptr;
    QTableView* m_counts = nullptr;
};
