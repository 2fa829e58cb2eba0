// SPDX-License-Identifier: MIT
#include "resultsutil.h"

#include <ks/core/analysisreports.h>

#include <QObject>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace ResultsUtil {

ks::RunResults resultsFromSuite(const ks::Suite& suite) {
    ks::RunResults r;
    r.run.suite = suite.name;
    r.thresholds = ks::Thresholds::defaults();
    for (const auto& spec : suite.tasks) {
        ks::TaskResult t = ks::resultSkeleton(spec);
        t.status = ks::TaskStatus::Skipped;
        r.tasks.push_back(std::move(t));
    }
    for (const auto& issue : suite.issues) r.tasks.push_back(ks::failedLoadResult(issue));
    return r;
}

int flaggedSourceLine(const ks::TaskResult& task, const ks::Thresholds& thresholds) {
    int bestRewrite = 0, anyRewrite = 0, firstNode = 0;
    if (task.criterionRun(ks::Criterion::BaselineInefficiency)) {
        const auto& r = *task.inefficiency;
        for (const auto& w : r.rewrites) {
            if (w.line <= 0) continue;
            if (!anyRewrite) anyRewrite = w.line;
            if (!bestRewrite && w.equal && w.rule == r.bestRule) bestRewrite = w.line;
        }
    }
    if (task.criterionRun(ks::Criterion::RedundantComputation))
        for (const auto& n : task.redundancy->nodes)
            if (n.line > 0) {
                firstNode = n.line;
                break;
            }
    const bool rewriteFlags = task.criterionRun(ks::Criterion::BaselineInefficiency) &&
                              ks::inefficiencyVerdict(*task.inefficiency, thresholds).rewrite;
    if (rewriteFlags && bestRewrite) return bestRewrite;
    if (task.flagged(ks::Criterion::RedundantComputation, thresholds) && firstNode)
        return firstNode;
    return bestRewrite ? bestRewrite : anyRewrite ? anyRewrite : firstNode;
}

ks::RunResults subset(const ks::RunResults& results, const QList<int>& rows) {
    ks::RunResults r;
    r.run = results.run;
    r.thresholds = results.thresholds;
    r.tasks.reserve(static_cast<size_t>(rows.size()));
    for (int row : rows)
        if (row >= 0 && static_cast<size_t>(row) < results.tasks.size())
            r.tasks.push_back(results.tasks[static_cast<size_t>(row)]);
    return r;
}

std::string taskMetricsJson(const ks::TaskResult& task, const ks::Thresholds& thresholds) {
    auto j = nlohmann::json::parse(ks::taskResultToJson(task));
    nlohmann::json flags, th;
    for (const auto& c : ks::criteria())
        flags[c.key] = task.criterionRun(c.criterion)
                           ? nlohmann::json(task.flagged(c.criterion, thresholds))
                           : nlohmann::json(nullptr);
    for (const auto& i : ks::thresholdInfos()) th[i.key] = thresholds.value(i.threshold);
    th[ks::BorderlineMarginKey] = thresholds.borderlineMargin;
    th["profile"] = thresholds.profile;
    j["flags"] = flags;
    j["any_flag"] = task.anyFlag(thresholds);
    j["thresholds"] = th;
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

QStringList flaggedCriteria(const ks::TaskResult& task, const ks::Thresholds& thresholds) {
    QStringList out;
    for (const auto& c : ks::criteria())
        if (task.flagged(c.criterion, thresholds)) out << QString::fromUtf8(c.label);
    return out;
}

std::vector<SpeedupBar> speedupBars(const ks::TaskBench& task) {
    std::vector<SpeedupBar> bars;
    const QString id = QString::fromStdString(task.taskId);
    const double base = task.baseline.medianMs;
    SpeedupBar b;
    b.taskId = id;
    b.label = QObject::tr("baseline");
    b.kind = std::isfinite(base) ? SpeedupBar::Kind::Baseline : SpeedupBar::Kind::NotRun;
    b.speedup = std::isfinite(base) ? 1.0 : ks::NaN;
    if (std::isfinite(base) && task.baseline.q1Ms > 0 && task.baseline.q3Ms > 0) {
        b.low = base / task.baseline.q3Ms;
        b.high = base / task.baseline.q1Ms;
    }
    b.note = QString::fromStdString(task.baselineError);
    b.baseline = QStringLiteral("eager");
    bars.push_back(b);
    for (const auto& o : task.otherBaselines) {
        SpeedupBar s;
        s.taskId = id;
        s.baseline = QString::fromStdString(o.kind);
        s.label = s.baseline == QLatin1String("graph") ? QObject::tr("CUDA graph") : s.baseline;
        // Short: the chart prints it under the bar, beside the variants' summaries.
        s.summary = s.baseline == QLatin1String("compiled") ? QObject::tr("AOTInductor")
                    : s.baseline == QLatin1String("graph")  ? QObject::tr("eager, replayed")
                                                            : baselineName(s.baseline);
        s.verdict = !o.usable() ? QObject::tr("unavailable")
                    : o.validation.run && !o.validation.passed ? QStringLiteral("invalid")
                                                               : QObject::tr("reference");
        if (!o.usable()) {
            s.kind = SpeedupBar::Kind::NotRun;
            s.note = QString::fromStdString(o.error);
        } else {
            s.kind = o.validation.run && !o.validation.passed ? SpeedupBar::Kind::Failed : SpeedupBar::Kind::Baseline;
            s.speedup = o.vsEager.ratio;
            if (o.vsEager.measured()) {
                s.low = o.vsEager.lo;
                s.high = o.vsEager.hi;
                s.interval = true;
                s.noDifference = o.vsEager.noMeasurableDifference();
            }
            if (s.kind == SpeedupBar::Kind::Failed)
                s.note = o.validation.failures.empty() ? QObject::tr("wrong against the float64 reference")
                                                       : QString::fromStdString(o.validation.failures.front());
            else if (o.kind == "compiled")
                s.note = o.cacheHit ? QObject::tr("compiled package from the cache")
                                    : QObject::tr("compiled in %1 s").arg(o.compileSeconds, 0, 'f', 0);
        }
        bars.push_back(s);
    }
    for (size_t vi = 0; vi < task.variants.size(); ++vi) {
        const ks::VariantResult& v = task.variants[vi];
        SpeedupBar s;
        s.taskId = id;
        s.variant = static_cast<int>(vi);
        s.label = variantLabel(task, v);
        // An external kernel rarely has a summary: its format says more than nothing.
        s.summary = QString::fromStdString(v.summary.empty() ? v.external.format : v.summary);
        s.verdict = QString::fromStdString(ks::variantVerdict(v));
        s.guards = guardNames(v);
        s.library = v.hasGuard("library");
        const double med = v.timing.medianMs;
        s.speedup = std::isfinite(v.speedup)
                        ? v.speedup
                        : (std::isfinite(base) && med > 0 ? base / med : ks::NaN);
        if (v.speedupStats.measured()) {
            s.low = v.speedupStats.lo;
            s.high = v.speedupStats.hi;
            s.interval = true;
            s.noDifference = v.speedupStats.noMeasurableDifference();
        } else if (std::isfinite(base) && v.timing.q1Ms > 0 && v.timing.q3Ms > 0) {
            s.low = base / v.timing.q3Ms;
            s.high = base / v.timing.q1Ms;
        }
        // A guard other than `library` and `impossible-speed` (which keeps its own colour) is a
        // cheat even where validation passed: the time measured is not the task's work.
        bool cheat = false;
        for (const auto& h : v.guardHits)
            cheat = cheat || (h.guard != "library" && h.guard != "impossible-speed");
        if (v.isExternal() && !v.external.compiled) {
            s.kind = SpeedupBar::Kind::NotRun; // never became a kernel: nothing to time
            s.note = ResultsUtil::verdictDetail(v);
        } else if (!v.error.empty()) {
            s.kind = SpeedupBar::Kind::Failed;
            s.note = QString::fromStdString(v.error);
        } else if (!v.unsupported.empty()) {
            s.kind = SpeedupBar::Kind::NotRun;
            s.note = QString::fromStdString(v.unsupported);
        } else if (cheat) {
            s.kind = SpeedupBar::Kind::Cheat;
            s.note = ResultsUtil::verdictDetail(v);
        } else if (v.validation.run && !v.validation.passed) {
            s.kind = SpeedupBar::Kind::Failed;
            s.note = v.validation.failures.empty()
                         ? QObject::tr("validation failed")
                         : QString::fromStdString(v.validation.failures.front());
        } else if (v.impossible || v.hasGuard("impossible-speed")) {
            s.kind = SpeedupBar::Kind::Impossible;
            s.note = v.impossibleWhy.empty() ? ResultsUtil::verdictDetail(v)
                                             : QString::fromStdString(v.impossibleWhy);
        } else if (v.shortcut) {
            s.kind = SpeedupBar::Kind::Shortcut;
            s.note = QString::fromStdString(v.summary);
        } else if (!std::isfinite(s.speedup)) {
            s.kind = SpeedupBar::Kind::NotRun;
            s.note = QObject::tr("not timed");
        } else {
            s.kind = SpeedupBar::Kind::Passed;
            s.note = s.library ? ResultsUtil::verdictDetail(v) : QString::fromStdString(v.summary);
        }
        bars.push_back(s);
    }
    return bars;
}

QString variantLabel(const ks::TaskBench& task, const ks::VariantResult& v) {
    if (v.isExternal()) return QString::fromStdString(v.name);
    std::string name = v.name;
    if (!task.op.empty() && name.rfind(task.op + "_", 0) == 0)
        name = name.substr(task.op.size() + 1);
    if (name == "kernel" + std::to_string(v.version) || name == "kernel") name.clear();
    return name.empty() ? QStringLiteral("v%1").arg(v.version)
                        : QStringLiteral("v%1 %2").arg(v.version).arg(QString::fromStdString(name));
}

QStringList guardNames(const ks::VariantResult& v) {
    QStringList out;
    for (const auto& h : v.guardHits)
        if (!out.contains(QString::fromStdString(h.guard))) out << QString::fromStdString(h.guard);
    if (v.impossible && !out.contains(QStringLiteral("impossible-speed")))
        out << QStringLiteral("impossible-speed");
    return out;
}

QString verdictText(const ks::VariantResult& v) {
    const QString verdict = QString::fromStdString(ks::variantVerdict(v));
    if (verdict != QLatin1String("valid")) return verdict;
    if (v.hasGuard("library")) return verdict + QStringLiteral(" \u00b7 library");
    if (v.shortcut) return verdict + QStringLiteral(" \u00b7 shortcut");
    return verdict;
}

QString firstCompilerError(const std::string& log) {
    static const QRegularExpression error(
        QStringLiteral("(^|[\\s:)])(fatal |catastrophic )?error( #[\\w-]+)?\\s*:"));
    for (const QString& line : QString::fromStdString(log).split(QLatin1Char('\n')))
        if (error.match(line).hasMatch()) return line.trimmed();
    return {};
}

QString verdictDetail(const ks::VariantResult& v) {
    if (ks::variantVerdict(v) == "compile error") {
        const QString line = firstCompilerError(v.external.compileLog);
        if (!line.isEmpty()) return line;
    }
    return QString::fromStdString(ks::verdictDetail(v));
}

std::optional<bool> expectMet(const ks::VariantResult& v) {
    std::string e = v.external.expect;
    const std::string verdict = ks::variantVerdict(v);
    if (e == "library") return verdict == "valid" && v.hasGuard("library");
    if (e.rfind("cheat:", 0) == 0) {
        const std::string guard = e.substr(6);
        return verdict == "cheat" &&
               (v.hasGuard(guard) || (guard == "impossible-speed" && v.impossible));
    }
    // Any other verdict by name; the corpus spells "compile error" with a hyphen.
    std::replace(e.begin(), e.end(), '-', ' ');
    for (const char* known : {"valid", "invalid", "cheat", "compile error", "refused", "failed",
                              "not run", "unsupported"})
        if (e == known) return verdict == e;
    return std::nullopt;
}

QString baselineName(const QString& kind) {
    if (kind == QLatin1String("eager")) return QObject::tr("PyTorch eager");
    if (kind == QLatin1String("compiled")) return QObject::tr("compiled (AOTInductor)");
    if (kind == QLatin1String("graph")) return QObject::tr("eager in a CUDA graph");
    return kind;
}

QString clockSummary(const ks::TimingStats& t) {
    QStringList parts;
    if (t.runs > 0)
        parts << (t.blocks > 0 ? QObject::tr("%1 runs in %2 interleaved blocks").arg(t.runs).arg(t.blocks)
                               : QObject::tr("%1 runs").arg(t.runs));
    if (!t.clockBlocks.empty()) {
        const ks::TimingStats::ClockSpan span = t.clockSpan();
        const uint64_t reasons = span.reasons;
        QString c = QObject::tr("SM clock %1-%2 MHz (NVML), %3 of %4 blocks moved more than %5 %")
                        .arg(span.loMhz, 0, 'f', 0).arg(span.hiMhz, 0, 'f', 0).arg(t.movedBlocks()).arg(t.clockBlocks.size())
                        .arg(ks::ClockDriftLimit * 100, 0, 'f', 0);
        QStringList names;
        for (const auto& n : ks::clockReasonNames(reasons)) names << QString::fromStdString(n);
        if (!names.isEmpty()) c += QObject::tr("; clock-event reasons seen: %1").arg(names.join(QStringLiteral(", ")));
        parts << c;
    } else if (!t.clockSource.empty()) {
        parts << QObject::tr("no clock record (%1)").arg(QString::fromStdString(t.clockSource));
    }
    return parts.join(QStringLiteral("; "));
}

QString speedupStatsText(const ks::SpeedupStats& s, const QString& baseline, double baselineMedianMs) {
    if (!std::isfinite(s.ratio)) return {};
    QString t = QObject::tr("%1x over %2").arg(s.ratio, 0, 'g', 4).arg(baseline);
    if (s.measured()) {
        t += QObject::tr(": 95 % interval [%1, %2] (%3 bootstrap resamples of both sample sets)")
                 .arg(s.lo, 0, 'g', 4).arg(s.hi, 0, 'g', 4).arg(s.resamples);
        if (s.noMeasurableDifference()) t += QObject::tr(", which holds 1: no measurable difference");
    } else {
        t += QObject::tr(" (no interval recorded)");
    }
    if (std::isfinite(s.pValue))
        t += s.pValue > 0 ? QObject::tr("; Mann-Whitney U p = %1").arg(s.pValue, 0, 'g', 3)
                          : QObject::tr("; Mann-Whitney U p < 1e-300"); // below a double's range
    if (std::isfinite(baselineMedianMs))
        t += QObject::tr("; the baseline's median %1 ms, timed interleaved in the same worker").arg(baselineMedianMs, 0, 'g', 4);
    return t;
}

QString speedupKindName(SpeedupBar::Kind kind) {
    switch (kind) {
    case SpeedupBar::Kind::Baseline:
        return QObject::tr("baseline");
    case SpeedupBar::Kind::Passed:
        return QObject::tr("valid");
    case SpeedupBar::Kind::Failed:
        return QObject::tr("failed validation");
    case SpeedupBar::Kind::Shortcut:
        return QObject::tr("shortcut");
    case SpeedupBar::Kind::Impossible:
        return QObject::tr("impossible");
    case SpeedupBar::Kind::NotRun:
        return QObject::tr("not run");
    case SpeedupBar::Kind::Cheat:
        return QObject::tr("cheat");
    }
    return {};
}

QString timingSummary(const ks::TaskResult& t) {
    auto secs = [](double v) { return QString::number(v, 'f', 2) + QStringLiteral(" s"); };
    auto gib = [](int64_t b) { return QString::number(double(b) / double(int64_t{1} << 30), 'f', 2) + QStringLiteral(" GiB"); };
    QStringList lines;
    lines << QObject::tr("<b>%1</b> in all").arg(secs(t.wallSeconds));
    const auto& p = t.phaseSeconds;
    auto phase = [&](const char* key, const QString& label) {
        if (const auto it = p.find(key); it != p.end()) lines << QStringLiteral("%1: %2").arg(label, secs(it->second));
    };
    phase("statistics", QObject::tr("statistics (filters 1\u20134, both passes)"));
    phase("redundancy", QObject::tr("redundant computation (filter 6)"));
    phase("inefficiency", QObject::tr("baseline inefficiency (filter 5)"));
    if (p.count("draw"))
        lines << QObject::tr("drawing the operands: %1 on host threads, %2 waited for, uploads %3")
                     .arg(secs(p.at("draw")), secs(p.count("draw_wait") ? p.at("draw_wait") : 0.0),
                          secs(p.count("upload") ? p.at("upload") : 0.0));
    if (t.operandDraws > 0)
        lines << QObject::tr("operand sets: %1 drawn (%2 each), %3 reused, %4 drawn again")
                     .arg(t.operandDraws)
                     .arg(gib(t.operandSetBytes))
                     .arg(t.operandReuses)
                     .arg(t.operandRedraws) +
                 (t.operandDeviceReuses > 0
                      ? QObject::tr("; %1 served from device copies (%2 kept at most)")
                            .arg(t.operandDeviceReuses)
                            .arg(gib(t.peakOperandDeviceKeptBytes))
                      : QString());
    if (t.impactAfterOutputPass)
        lines << QObject::tr("the input-impact pass ran after the output pass (both passes' running moments "
                             "would not fit on the device at once)");
    if (t.peakHostBytes > 0)
        lines << QObject::tr("host memory: %1 at most%2; operands held %3 at most")
                     .arg(gib(t.peakHostBytes),
                          t.peakHostPerTask ? QString() : QObject::tr(" (the worker's peak so far)"),
                          gib(t.peakOperandHostBytes));
    if (t.rssAnonBytes + t.rssFileBytes > 0) {
        QString end = QObject::tr("the worker at the task's end: %1 resident (%2 anonymous, %3 mapped from files)")
                          .arg(gib(t.rssAnonBytes + t.rssFileBytes), gib(t.rssAnonBytes), gib(t.rssFileBytes));
        if (t.pinnedHeldBytes > 0)
            end += QObject::tr("; page-locked blocks %1, %2 of them holding tasks drawn ahead")
                       .arg(gib(t.pinnedHeldBytes), gib(t.pinnedInUseBytes));
        lines << end;
    }
    if (t.peakMemoryBytes > 0) lines << QObject::tr("GPU memory: %1 at most").arg(gib(t.peakMemoryBytes));
    return lines.join(QStringLiteral("<br>"));
}

} // namespace ResultsUtil
