// SPDX-License-Identifier: MIT
#include "speedupchart.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace {
using Kind = ResultsUtil::SpeedupBar::Kind;

struct Style {
    QColor pen, brush;
    Qt::BrushStyle pattern;
};

Style styleOf(Kind k) {
    switch (k) {
    case Kind::Baseline:
        return {QColor(0x61, 0x61, 0x61), QColor(0xbd, 0xbd, 0xbd), Qt::SolidPattern};
    case Kind::Passed:
        return {QColor(0x0d, 0x47, 0xa1), QColor(0x42, 0x85, 0xf4), Qt::SolidPattern};
    case Kind::Failed:
        return {QColor(0xb7, 0x1c, 0x1c), QColor(0xe5, 0x39, 0x35), Qt::BDiagPattern};
    case Kind::Shortcut:
        return {QColor(0x4a, 0x14, 0x8c), QColor(0x9c, 0x27, 0xb0), Qt::FDiagPattern};
    case Kind::Impossible:
        return {QColor(0xe6, 0x51, 0x00), QColor(0xff, 0x98, 0x00), Qt::DiagCrossPattern};
    case Kind::NotRun:
        return {QColor(0x9e, 0x9e, 0x9e), QColor(0xee, 0xee, 0xee), Qt::SolidPattern};
    case Kind::Cheat:
        // Greyed and cross-hatched under a red outline: a tall bar here is not a win.
        return {QColor(0xb7, 0x1c, 0x1c), QColor(0x61, 0x61, 0x61), Qt::DiagCrossPattern};
    }
    return {};
}

// The legend says what each style means; a cheat's entry says why its bar does not count.
QString legendName(Kind k) {
    return k == Kind::Cheat ? QObject::tr("cheat (a guard fired)")
                            : ResultsUtil::speedupKindName(k);
}

// Verdicts whose bar label is red: the number above them is not a result.
bool isBad(const ResultsUtil::SpeedupBar& bar) {
    return bar.kind == Kind::Failed || bar.kind == Kind::Cheat ||
           bar.verdict == QLatin1String("compile error") || bar.verdict == QLatin1String("refused");
}

QString speedupText(double s) {
    return s >= 10 ? QStringLiteral("%1x").arg(s, 0, 'f', 0)
                   : QStringLiteral("%1x").arg(s, 0, 'g', 2);
}
} // namespace

SpeedupChart::SpeedupChart(QWidget* parent)
    : ChartWidget(tr("Speedup over PyTorch eager"), parent) {
    showMessage(tr("Open a bench file (File \u25b8 Open Kernel Bench) to compare kernels"));
}

void SpeedupChart::setTasks(const std::vector<ks::TaskBench>& tasks,
                            const QHash<QString, QStringList>& flaws, const QString& subject) {
    m_tasks = tasks;
    m_subject = subject;
    m_flaws = flaws;
    scheduleRebuild();
}

void SpeedupChart::setFlaws(const QHash<QString, QStringList>& flaws) {
    if (flaws == m_flaws) return;
    m_flaws = flaws;
    if (!m_tasks.empty()) scheduleRebuild();
}

void SpeedupChart::rebuild() {
    m_bars.clear();
    m_valueLabels.clear();
    m_flawMark = false;
    if (m_tasks.empty()) {
        showMessage(tr("No kernels for this task"));
        return;
    }
    resetPlot();
    const bool single = m_tasks.size() == 1;
    std::map<Kind, QCPBars*> barsOf;
    // Error bars hang on an invisible graph at the true speedups: QCPBars store value - base.
    QVector<double> errKeys, errValues, errMinus, errPlus;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double key = 0, lowest = 1.0, highest = 1.0;
    const QColor flawColor(0xc6, 0x28, 0x28);
    QStringList flawedTasks;
    QFont labelFont = font();
    if (!single) labelFont.setPointSize(std::max(6, labelFont.pointSize() - 2));

    size_t barCount = 0;
    for (const auto& task : m_tasks)
        barCount += task.variants.size() + 1;
    const bool rotate = !single && barCount > 8;
    for (const auto& task : m_tasks) {
        const QString id = QString::fromStdString(task.taskId);
        const QStringList flaws = m_flaws.value(id);
        const double groupStart = key;
        for (const auto& bar : ResultsUtil::speedupBars(task)) {
            m_bars.push_back(bar);
            // One task: the variant and, on a second line, what it changes (elided to the bar).
            const QString summary = QFontMetrics(labelFont).elidedText(
                bar.baseline == QLatin1String("eager") ? tr("PyTorch eager") : bar.summary, Qt::ElideRight,
                int(width() * 0.8 / double(std::max<size_t>(1, barCount))));
            // Several groups: the task (or file) over the variant while the bars are few
            // enough to label flat; rotated "task · variant" when there are many.
            const QString flawMark = flaws.isEmpty() ? QString() : QStringLiteral("\u26a0 ");
            ticker->addTick(key, single   ? bar.label + QLatin1Char('\n') + summary
                                 : rotate ? flawMark + id + QStringLiteral(" \u00b7 ") + bar.label
                                          : flawMark + id + QLatin1Char('\n') + bar.label);
            const bool drawn = std::isfinite(bar.speedup) && bar.speedup > 0;
            const bool hasErr = drawn && std::isfinite(bar.low) && std::isfinite(bar.high);
            if (drawn) {
                QCPBars*& b = barsOf[bar.kind];
                if (!b) {
                    const Style st = styleOf(bar.kind);
                    b = new QCPBars(xAxis, yAxis);
                    b->setWidth(0.7);
                    b->setBaseValue(1.0); // bars grow up from 1x for speedups, down for slowdowns
                    b->setPen(QPen(st.pen, 1.2));
                    b->setBrush(QBrush(st.brush, st.pattern));
                    b->setName(legendName(bar.kind));
                }
                b->addData(key, bar.speedup - 1.0);
                if (hasErr) {
                    errKeys << key;
                    errValues << bar.speedup;
                    errMinus << std::max(0.0, bar.speedup - bar.low);
                    errPlus << std::max(0.0, bar.high - bar.speedup);
                }
                lowest = std::min(lowest, hasErr ? bar.low : bar.speedup);
                highest = std::max(highest, hasErr ? bar.high : bar.speedup);
            }
            auto* text = new QCPItemText(this);
            const bool down = drawn && bar.speedup < 1.0;
            const double at = !drawn ? 1.0
                              : down ? (hasErr ? bar.low : bar.speedup)
                                     : (hasErr ? bar.high : bar.speedup);
            text->position->setCoords(key, at);
            text->setPositionAlignment((down ? Qt::AlignTop : Qt::AlignBottom) | Qt::AlignHCenter);
            // Not drawn: the verdict says why ("compile error", "refused"); a bar that is drawn
            // but does not count says so under its number, in both scopes.
            const bool named = !bar.verdict.isEmpty() && bar.verdict != QLatin1String("valid") &&
                               bar.verdict != QLatin1String("not run");
            QString t = drawn ? speedupText(bar.speedup) : named ? bar.verdict : tr("not run");
            QStringList cheats = bar.guards;
            cheats.removeAll(QStringLiteral("library"));
            QString mark; // what the bar is, under its number (or instead of it)
            if (bar.kind == Kind::Failed)
                mark = QStringLiteral("\u2717 ") + bar.verdict;
            else if (bar.kind == Kind::Cheat)
                mark = tr("\u2717 cheat") +
                       (single && !cheats.isEmpty()
                            ? QStringLiteral("\n") + cheats.join(QStringLiteral(", "))
                            : QString());
            else if (bar.kind == Kind::Shortcut && single)
                mark = tr("shortcut");
            else if (bar.kind == Kind::Impossible && single)
                mark = tr("impossible");
            else if (bar.library && single)
                mark = tr("library"); // valid, but the time is ATen's, not the file's own kernel
            // A failure or cheat with no time: its mark alone ("\u2717 failed"), not "failed"
            // twice.
            const bool markOnly = !drawn && (bar.kind == Kind::Failed || bar.kind == Kind::Cheat);
            if (!mark.isEmpty()) t = markOnly ? mark : t + QLatin1Char('\n') + mark;
            text->setText(t);
            m_valueLabels << t;
            text->setColor(isBad(bar) ? styleOf(Kind::Failed).pen : QColor(0x21, 0x21, 0x21));
            QFont f = labelFont;
            f.setBold(bar.baseline.isEmpty());
            text->setFont(f);
            key += 1;
        }
        if (!flaws.isEmpty()) {
            flawedTasks << id;
            if (!single) {
                // Tint the flawed task's group: its speedups are not results.
                auto* rect = new QCPItemRect(this);
                rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
                rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
                rect->topLeft->setCoords(groupStart - 0.5, 0);
                rect->bottomRight->setCoords(key - 0.5, 1);
                rect->setPen(QPen(flawColor, 1, Qt::DashLine));
                rect->setBrush(QColor(0xff, 0xcd, 0xd2, 90));
                rect->setLayer(QStringLiteral("background"));
            }
        }
        key += single ? 0 : 0.6; // a gap between tasks
    }

    if (!errKeys.isEmpty()) {
        auto* anchor = addGraph();
        anchor->setData(errKeys, errValues, true);
        anchor->setLineStyle(QCPGraph::lsNone);
        anchor->setScatterStyle(QCPScatterStyle::ssNone);
        anchor->removeFromLegend();
        auto* err = new QCPErrorBars(xAxis, yAxis);
        err->removeFromLegend();
        err->setDataPlottable(anchor);
        err->setData(errMinus, errPlus);
        err->setPen(QPen(QColor(0x21, 0x21, 0x21), 1.2));
        err->setWhiskerWidth(8);
    }

    auto* one = new QCPItemStraightLine(this);
    one->point1->setCoords(0, 1);
    one->point2->setCoords(1, 1);
    one->setPen(QPen(Qt::black, 1));
    // The 1x line (the baseline) carries no text: a label on the plot collided with the value
    // label of a bar near 1x (softmax_kernel6 at 0.98x on L1-23 in the H200 bench).

    xAxis->setTicker(ticker);
    xAxis->setTickLabelFont(labelFont);
    xAxis->setTickLabelRotation(rotate ? -40 : 0);
    xAxis->setRange(-0.7, key - (single ? 0.3 : 0.9));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    // Headroom above the tallest bar keeps the legend and value labels off the bars.
    yAxis->setRange(std::min(0.5, lowest / 2.5), highest * (single ? 6 : 80));
    // Files with the bootstrap interval draw it; older ones the IQR (ResultsUtil::SpeedupBar).
    bool anyInterval = false;
    for (const auto& bar : m_bars) anyInterval = anyInterval || bar.interval;
    yAxis->setLabel(anyInterval ? tr("speedup (log), 95% confidence intervals") : tr("speedup (log), IQR error bars"));

    if (!flawedTasks.isEmpty()) {
        m_flawMark = true;
        if (single) axisRect()->setBackground(QColor(0xff, 0xeb, 0xee));
        // Six criteria can flag one task; past three, the list gets its own line to stay visible.
        const QStringList why = m_flaws.value(flawedTasks.first());
        setWarning(single ? tr("\u26a0 Speedup on a flawed task: %1 is flagged by%2%3")
                                .arg(flawedTasks.first(),
                                     why.size() > 3 ? QStringLiteral("\n") : QStringLiteral(" "),
                                     why.join(QStringLiteral(", ")))
                          : tr("\u26a0 Speedups on flawed tasks (tinted): %1")
                                .arg(flawedTasks.join(QStringLiteral(", "))));
    }
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), font().pointSize() - 1));
    // Many bars: a one-row legend in the headroom instead of a box over the first task's bars.
    legend->setFillOrder(single ? QCPLegend::foRowsFirst : QCPLegend::foColumnsFirst);
    axisRect()->insetLayout()->setInsetAlignment(0, single ? Qt::AlignTop | Qt::AlignLeft
                                                           : Qt::AlignTop | Qt::AlignHCenter);
    setTitle(single ? tr("Speedup over PyTorch eager: %1")
                          .arg(QString::fromStdString(m_tasks.front().taskId))
             : m_subject.isEmpty() ? tr("Speedup over PyTorch eager: all tasks with kernels")
                                   : tr("Speedup over PyTorch eager: %1").arg(m_subject));
    setHasData(!barsOf.empty());
    rememberHomeRange();
    replot(rpQueuedReplot);
}
