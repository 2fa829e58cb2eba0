// SPDX-License-Identifier: MIT
#include "ks/core/resultsdiff.h"

#include "ks/core/analysisreports.h"

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <unordered_map>

namespace ks {
namespace {

std::string num(double v, int prec = 3) {
    if (std::isnan(v)) return "nan";
    std::ostringstream os;
    os << std::setprecision(prec) << v;
    return os.str();
}

std::string signedNum(double v) {
    if (std::isnan(v)) return "";
    return (v > 0 ? "+" : "") + num(v);
}

std::string csvBool(FlagState s) {
    return s == FlagState::Flagged ? "True" : s == FlagState::Passed ? "False" : "";
}

const TaskResult* at(const RunResults& r, int i) {
    return i >= 0 && static_cast<size_t>(i) < r.tasks.size() ? &r.tasks[static_cast<size_t>(i)]
                                                             : nullptr;
}

std::string deviceText(const RunInfo& r) {
    return r.device + (r.deviceName.empty() ? "" : " (" + r.deviceName + ")");
}

void fillFlags(TaskDiff& t, const RunResults& a, const Thresholds& ta, const RunResults& b,
               const Thresholds& tb) {
    const TaskResult* ra = at(a, t.indexA);
    const TaskResult* rb = at(b, t.indexB);
    t.anyFlagA = t.anyFlagB = false;
    for (auto& c : t.criteria)
        c.borderlineA = c.borderlineB = false;
    if (ra)
        for (const auto& hit : ra->borderline(ta))
            t.criteria[static_cast<size_t>(thresholdInfo(hit.threshold).criterion)].borderlineA = true;
    if (rb)
        for (const auto& hit : rb->borderline(tb))
            t.criteria[static_cast<size_t>(thresholdInfo(hit.threshold).criterion)].borderlineB = true;
    for (const auto& info : criteria()) {
        auto& c = t.criteria[static_cast<size_t>(info.criterion)];
        c.a = flagState(ra, info.criterion, ta);
        c.b = flagState(rb, info.criterion, tb);
        c.metricA = c.measuredA() ? ra->metric(info.criterion, ta) : NaN;
        c.metricB = c.measuredB() ? rb->metric(info.criterion, tb) : NaN;
        c.metricName.clear();
        if (info.criterion == Criterion::BaselineInefficiency && c.differs()) {
            // The rule that flagged decides what the delta is of: a flag by efficiency alone
            // next to an unflagged report says nothing in best-rewrite-speedup terms (both 1).
            const bool flaggedA = c.a == FlagState::Flagged;
            const TaskResult& f = flaggedA ? *ra : *rb;
            const InefficiencyVerdict v = inefficiencyVerdict(*f.inefficiency, flaggedA ? ta : tb);
            const Threshold th = v.rewrite      ? Threshold::BaselineRewriteSpeedup
                                 : v.efficiency ? Threshold::BaselineEfficiency
                                                : Threshold::BaselinePasses;
            if (th != Threshold::BaselineRewriteSpeedup) {
                c.metricName = th == Threshold::BaselineEfficiency ? "efficiency" : "passes";
                c.metricA = ra->thresholdMetric(th);
                c.metricB = rb->thresholdMetric(th);
            }
        }
        t.anyFlagA = t.anyFlagA || c.a == FlagState::Flagged;
        t.anyFlagB = t.anyFlagB || c.b == FlagState::Flagged;
    }
}

void recount(ResultsDiff& d) {
    d.flaggedA.fill(0);
    d.flaggedB.fill(0);
    d.differing.fill(0);
    d.differingTasks = d.onlyInA = d.onlyInB = 0;
    for (const auto& t : d.tasks) {
        for (int c = 0; c < CriterionCount; ++c) {
            const auto& cd = t.criteria[static_cast<size_t>(c)];
            if (cd.a == FlagState::Flagged) ++d.flaggedA[static_cast<size_t>(c)];
            if (cd.b == FlagState::Flagged) ++d.flaggedB[static_cast<size_t>(c)];
            if (cd.differs()) ++d.differing[static_cast<size_t>(c)];
        }
        if (t.differs()) ++d.differingTasks;
        if (t.inA() && !t.inB()) ++d.onlyInA;
        if (t.inB() && !t.inA()) ++d.onlyInB;
    }
}

void runDifferences(ResultsDiff& d, const RunResults& a, const Thresholds& ta, const RunResults& b,
                    const Thresholds& tb) {
    d.run.clear();
    auto differ = [&](const char* what, const std::string& x, const std::string& y) {
        if (x != y) d.run.push_back({what, x.empty() ? "(none)" : x, y.empty() ? "(none)" : y});
    };
    differ("suite", a.run.suite, b.run.suite);
    differ("device", deviceText(a.run), deviceText(b.run));
    differ("preset", a.run.preset, b.run.preset);
    differ("seeds", std::to_string(a.run.seeds), std::to_string(b.run.seeds));
    differ("seed semantics", a.run.seedSemantics, b.run.seedSemantics);
    differ("tool version", a.run.toolVersion, b.run.toolVersion);
    differ("tasks", std::to_string(a.tasks.size()), std::to_string(b.tasks.size()));
    for (const auto& i : thresholdInfos())
        if (ta.value(i.threshold) != tb.value(i.threshold))
            d.run.push_back({i.key, num(ta.value(i.threshold), 6), num(tb.value(i.threshold), 6)});
}

} // namespace

const char* flagStateName(FlagState s) {
    switch (s) {
    case FlagState::Missing:
        return "missing";
    case FlagState::NotRun:
        return "not run";
    case FlagState::Error:
        return "error";
    case FlagState::Passed:
        return "passed";
    case FlagState::Flagged:
        return "flagged";
    }
    return "?";
}

FlagState flagState(const TaskResult* task, Criterion c, const Thresholds& t) {
    if (!task) return FlagState::Missing;
    if (task->criterionRun(c)) return task->flagged(c, t) ? FlagState::Flagged : FlagState::Passed;
    return task->status == TaskStatus::Error || !task->criterionError(c).empty()
               ? FlagState::Error
               : FlagState::NotRun;
}

std::string flagCellText(const TaskResult* task, Criterion c, const Thresholds& t) {
    const FlagState s = flagState(task, c, t);
    if (s != FlagState::Passed && s != FlagState::Flagged) return flagStateName(s);
    switch (c) {
    case Criterion::BaselineInefficiency:
        return inefficiencySummary(*task->inefficiency, t);
    case Criterion::RedundantComputation:
        return redundancySummary(*task->redundancy);
    default:
        return num(task->metric(c, t));
    }
}

int TaskDiff::differingCount() const {
    int n = 0;
    for (const auto& c : criteria)
        n += c.differs() ? 1 : 0;
    return n;
}

ResultsDiff diffResults(const RunResults& a, const Thresholds& ta, const RunResults& b,
                        const Thresholds& tb) {
    ResultsDiff d;
    std::unordered_map<std::string, int> inB;
    inB.reserve(b.tasks.size());
    for (size_t i = 0; i < b.tasks.size(); ++i)
        inB.emplace(b.tasks[i].id, static_cast<int>(i));
    std::unordered_map<std::string, int> inA;
    inA.reserve(a.tasks.size());
    d.tasks.reserve(a.tasks.size() + b.tasks.size());
    auto identity = [](TaskDiff& t, const TaskResult& r) {
        t.id = r.id;
        t.name = r.name;
        t.category = r.category;
        t.level = r.level;
        t.number = r.number;
    };
    for (size_t i = 0; i < a.tasks.size(); ++i) {
        // A file that lists a task twice (hand-edited): the first row stands for it, as find()
        // does.
        if (!inA.emplace(a.tasks[i].id, static_cast<int>(i)).second) continue;
        TaskDiff t;
        identity(t, a.tasks[i]);
        t.indexA = static_cast<int>(i);
        if (const auto it = inB.find(a.tasks[i].id); it != inB.end()) t.indexB = it->second;
        d.tasks.push_back(std::move(t));
    }
    for (size_t i = 0; i < b.tasks.size(); ++i) {
        if (inA.count(b.tasks[i].id) || inB.at(b.tasks[i].id) != static_cast<int>(i)) continue;
        TaskDiff t;
        identity(t, b.tasks[i]);
        t.indexB = static_cast<int>(i);
        d.tasks.push_back(std::move(t));
    }
    rethresholdDiff(d, a, ta, b, tb);
    return d;
}

void rethresholdDiff(ResultsDiff& d, const RunResults& a, const Thresholds& ta, const RunResults& b,
                     const Thresholds& tb) {
    for (auto& t : d.tasks)
        fillFlags(t, a, ta, b, tb);
    recount(d);
    runDifferences(d, a, ta, b, tb);
}

std::string describeResults(const RunResults& r) {
    return "suite '" + r.run.suite + "', " +
           (r.run.device.empty() ? "no device" : deviceText(r.run)) + ", preset " +
           (r.run.preset.empty() ? "(none)" : r.run.preset) + ", " + std::to_string(r.run.seeds) +
           " seeds, " + std::to_string(r.tasks.size()) + " tasks";
}

std::string resultsDiffToCsv(const ResultsDiff& d, const RunResults& a, const RunResults& b) {
    std::ostringstream os;
    os << "Task ID,Task Name,Level,Category,In A,In B,Status A,Status B,Differs,Differing "
          "Criteria,Any Flag A,Any Flag B";
    for (const auto& c : criteria())
        os << ',' << c.key << "_a," << c.key << "_b," << c.key << "_metric_a," << c.key
           << "_metric_b," << c.key << "_delta";
    // What filter 5's metric columns hold on that row: empty for the best rewrite speedup.
    os << ",baseline_inefficiency_metric,Borderline A,Borderline B\r\n";
    auto fmt9 = [](double v) { return std::isnan(v) ? std::string() : num(v, 9); };
    for (const auto& t : d.tasks) {
        const TaskResult* ra = at(a, t.indexA);
        const TaskResult* rb = at(b, t.indexB);
        // The keys of the criteria whose cell has `pred`, ';'-separated.
        auto keysWhere = [&](auto pred) {
            std::string keys;
            for (const auto& c : criteria())
                if (pred(t.criteria[static_cast<size_t>(c.criterion)]))
                    keys += (keys.empty() ? "" : ";") + std::string(c.key);
            return keys;
        };
        const std::string keys = keysWhere([](const CriterionDiff& cd) { return cd.differs(); });
        os << csvField(t.id) << ',' << csvField(t.name) << ',' << t.level << ','
           << csvField(t.category) << ',' << (t.inA() ? "True" : "False") << ','
           << (t.inB() ? "True" : "False") << ',' << (ra ? taskStatusName(ra->status) : "") << ','
           << (rb ? taskStatusName(rb->status) : "") << ',' << (t.differs() ? "True" : "False")
           << ',' << keys << ',' << (ra ? (t.anyFlagA ? "True" : "False") : "") << ','
           << (rb ? (t.anyFlagB ? "True" : "False") : "");
        for (const auto& cd : t.criteria)
            os << ',' << csvBool(cd.a) << ',' << csvBool(cd.b) << ',' << fmt9(cd.metricA) << ','
               << fmt9(cd.metricB) << ',' << fmt9(cd.delta());
        os << ',' << t.criteria[static_cast<size_t>(Criterion::BaselineInefficiency)].metricName << ','
           << keysWhere([](const CriterionDiff& cd) { return cd.borderlineA; }) << ','
           << keysWhere([](const CriterionDiff& cd) { return cd.borderlineB; }) << "\r\n";
    }
    return os.str();
}

std::string resultsDiffToText(const ResultsDiff& d, const RunResults& a, const Thresholds& ta,
                              const std::string& nameA, const RunResults& b, const Thresholds& tb,
                              const std::string& nameB) {
    std::ostringstream os;
    os << "A: " << nameA << ": " << describeResults(a) << "; thresholds " << ta.profile << "\n";
    os << "B: " << nameB << ": " << describeResults(b) << "; thresholds " << tb.profile << "\n";
    if (d.run.empty()) {
        os << "The runs agree in suite, device, preset, seeds and thresholds.\n";
    } else {
        os << "The runs differ in:";
        for (const auto& r : d.run)
            os << "\n  " << std::left << std::setw(26) << r.what << r.a << " | " << r.b;
        os << "\n";
    }
    os << "\n"
       << std::left << std::setw(26) << "criterion" << std::right << std::setw(10) << "flagged A"
       << std::setw(11) << "flagged B" << std::setw(9) << "differ"
       << "\n";
    for (const auto& c : criteria()) {
        const auto i = static_cast<size_t>(c.criterion);
        os << std::left << std::setw(26) << c.key << std::right << std::setw(10) << d.flaggedA[i]
           << std::setw(11) << d.flaggedB[i] << std::setw(9) << d.differing[i] << "\n";
    }
    os << "\n" << d.differingTasks << " of " << d.tasks.size() << " tasks differ in a flag";
    if (d.onlyInA || d.onlyInB)
        os << " (" << d.onlyInA << " only in A, " << d.onlyInB << " only in B)";
    os << (d.differingTasks ? ":\n" : ".\n");
    if (!d.differingTasks) return os.str();
    // One line per differing flag; the A and B columns as wide as their longest cell.
    struct Line {
        const TaskDiff* t;
        const CriterionInfo* c;
        std::string a, b;
    };
    std::vector<Line> lines;
    size_t idw = 4, aw = 3, bw = 3;
    int nearLines = 0;
    for (const auto& t : d.tasks) {
        if (!t.differs()) continue;
        for (const auto& c : criteria()) {
            const auto& cd = t.criteria[static_cast<size_t>(c.criterion)];
            if (!cd.differs()) continue;
            auto side = [&](FlagState s, bool near, const TaskResult* r, const Thresholds& th) {
                const char* mark = s == FlagState::Flagged ? (near ? "FLAG~ " : "FLAG ") : (near ? "ok~  " : "ok   ");
                return std::string(mark) + flagCellText(r, c.criterion, th);
            };
            if (cd.borderlineA || cd.borderlineB) ++nearLines;
            lines.push_back({&t, &c, side(cd.a, cd.borderlineA, at(a, t.indexA), ta),
                             side(cd.b, cd.borderlineB, at(b, t.indexB), tb)});
            idw = std::max(idw, t.id.size() + 2);
            aw = std::max(aw, lines.back().a.size() + 2);
            bw = std::max(bw, lines.back().b.size() + 2);
        }
    }
    const int idW = static_cast<int>(idw), aW = static_cast<int>(aw), bW = static_cast<int>(bw);
    os << std::left << std::setw(idW) << "id" << std::setw(38) << "name" << std::setw(24)
       << "criterion" << std::setw(aW) << "A" << std::setw(bW) << "B"
       << "delta\n";
    for (const auto& l : lines) {
        const std::string& n = l.t->name;
        const std::string name = n.size() > 36 ? n.substr(0, 35) + "~" : n;
        os << std::left << std::setw(idW) << l.t->id << std::setw(38) << name << std::setw(24)
           << l.c->key << std::setw(aW) << l.a << std::setw(bW) << l.b
           << signedNum(l.t->criteria[static_cast<size_t>(l.c->criterion)].delta());
        const std::string& mn = l.t->criteria[static_cast<size_t>(l.c->criterion)].metricName;
        if (!mn.empty()) os << " (" << mn << ")";
        os << "\n";
    }
    if (nearLines > 0)
        os << "~ borderline on that side (resting on the host's dispatch, or within borderline_margin of a "
              "threshold or of filter 5's launch-bound limit): "
           << nearLines << " of the " << lines.size() << " differing flags.\n";
    return os.str();
}

} // namespace ks
