// SPDX-License-Identifier: MIT
#pragma once
// Speedup over the PyTorch eager baseline (= 1x), one bar per kernel variant from naive to
// optimised, log scale, error bars from the timing IQR. Variants that failed validation are
// drawn hatched red, shortcuts and "impossible" speedups in their own colours, and a task that
// the filters flag gets a clear "speedup on a flawed task" mark: the number is not a result.

#include "chartwidget.h"

#include <models/resultsutil.h>

#include <QHash>

class SpeedupChart : public ChartWidget {
    Q_OBJECT
  public:
    explicit SpeedupChart(QWidget* parent = nullptr);

    // One task (labels are variant names) or several (labels carry the task id).
    // flaws: task id -> labels of the criteria that flag it (absent or empty = clean).
    void setTasks(const std::vector<ks::TaskBench>& tasks,
                  const QHash<QString, QStringList>& flaws);
    // Flags changed (new thresholds): only the marks move.
    void setFlaws(const QHash<QString, QStringList>& flaws);

    // For tests: the bars drawn, and whether the flawed-task mark is shown.
    const std::vector<ResultsUtil::SpeedupBar>& bars() {
        flush();
        return m_bars;
    }
    bool flawMarkShown() {
        flush();
        return m_flawMark;
    }

  protected:
    void rebuild() override;

  private:
    std::vector<ks::TaskBench> m_tasks;
    QHash<QString, QStringList> m_flaws;
    std::vector<ResultsUtil::SpeedupBar> m_bars;
    bool m_flawMark = false;
};
