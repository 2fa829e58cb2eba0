// SPDX-License-Identifier: MIT
#pragma once
// Speedup over the PyTorch eager baseline (= 1x), one bar per kernel variant from naive to
// optimised (or external kernels, see docs/external-kernels.md), log scale, error bars from the
// timing IQR. Variants that failed validation are drawn hatched red, cheats (a guard fired) grey
// cross-hatched with a red "cheat" label, shortcuts and "impossible" speedups in their own
// colours; a kernel that never compiled is named at 1x. A task that the filters flag gets a
// clear "speedup on a flawed task" mark: the number is not a result.

#include "chartwidget.h"

#include <models/resultsutil.h>

#include <QHash>

class SpeedupChart : public ChartWidget {
    Q_OBJECT
  public:
    explicit SpeedupChart(QWidget* parent = nullptr);

    // One task (labels are variant names) or several (labels carry the task id).
    // flaws: task id -> labels of the criteria that flag it (absent or empty = clean).
    // `subject` names what several groups are when they are not "all tasks with kernels" (one
    // task in several bench files: "L2-13 in 2 bench files").
    void setTasks(const std::vector<ks::TaskBench>& tasks, const QHash<QString, QStringList>& flaws,
                  const QString& subject = {});
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
    // ... and the text above each bar, in bar order: the number, then e.g. "✗ cheat" and its
    // guards.
    const QStringList& valueLabels() {
        flush();
        return m_valueLabels;
    }

  protected:
    void rebuild() override;

  private:
    std::vector<ks::TaskBench> m_tasks;
    QString m_subject;
    QHash<QString, QStringList> m_flaws;
    std::vector<ResultsUtil::SpeedupBar> m_bars;
    QStringList m_valueLabels;
    bool m_flawMark = false;
};
