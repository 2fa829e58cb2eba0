// SPDX-License-Identifier: MIT
#include "variantsmodel.h"
#include "filtermatrixmodel.h"

#include <QColor>
#include <QFont>

#include <cmath>

namespace {
using Kind = ResultsUtil::SpeedupBar::Kind;
using State = FilterMatrixModel::CellState;

const QString Dash = QStringLiteral("\u2014");

QString ms(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 4) : Dash;
}

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString joined(const std::vector<std::string>& v, const QString& sep) {
    QStringList out;
    for (const auto& s : v)
        out << q(s);
    return out.join(sep);
}

// The compiler's log is a tail of many lines; a tooltip shows its end, where nvcc summarises.
QString logTail(const std::string& log, int lines) {
    QStringList all = q(log).trimmed().split(QLatin1Char('\n'));
    if (all.size() > lines) all = all.mid(all.size() - lines);
    return all.join(QLatin1Char('\n'));
}
} // namespace

VariantsModel::VariantsModel(QObject* parent) : QAbstractTableModel(parent) {}

const ks::BaselineRun* VariantsModel::otherBaseline(const Part& part, const ResultsUtil::SpeedupBar& bar) {
    if (bar.variant >= 0 || bar.baseline.isEmpty() || bar.baseline == QLatin1String("eager")) return nullptr;
    return part.task.baselineOf(bar.baseline.toStdString());
}

const ks::TimingStats& VariantsModel::timingOf(const Part& part, const ResultsUtil::SpeedupBar& bar,
                                               const ks::VariantResult* v) {
    if (v) return v->timing;
    if (const auto* o = otherBaseline(part, bar)) return o->timing;
    return part.task.baseline;
}

const std::vector<VariantsModel::ColumnSpec>& VariantsModel::columnSpecs() {
    static const std::vector<ColumnSpec> specs{
        {FileColumn, QT_TR_NOOP("File"),
         QT_TR_NOOP("The bench file the row comes from, and its device (several files open)"),
         true},
        {NameColumn, QT_TR_NOOP("Variant"), nullptr, false},
        {FormatColumn, QT_TR_NOOP("Format"),
         QT_TR_NOOP("built-in, or how an external kernel was given: torch-extension, modelnew, "
                    "robust-kbench"),
         false},
        {VerdictColumn, QT_TR_NOOP("Verdict"),
         QT_TR_NOOP("First match wins: compile error, failed, cheat (a guard fired), invalid, "
                    "valid; \"library\": valid, but no CUDA kernel of its own ran"),
         false},
        {ExpectColumn, QT_TR_NOOP("Expect"),
         QT_TR_NOOP("What the corpus manifest expects (never used for the verdict); \u26a0 where "
                    "the verdict disagrees"),
         true},
        {GuardsColumn, QT_TR_NOOP("Guards"),
         QT_TR_NOOP("Guards that fired (detail in the cell's tooltip)"), false},
        {SpeedupColumn, QT_TR_NOOP("Speedup"),
         QT_TR_NOOP("Over PyTorch eager: ratio of medians with its bootstrap 95 % interval (both "
                    "sample sets resampled); baselines: their own speedup over eager"),
         false},
        {VsCompiledColumn, QT_TR_NOOP("\u00d7 compiled"),
         QT_TR_NOOP("Over the compiled baseline (PyTorch Inductor ahead of time, AOTInductor), "
                    "timed interleaved in the variant's own worker, with its 95 % interval"),
         true},
        {VsGraphColumn, QT_TR_NOOP("\u00d7 CUDA graph"),
         QT_TR_NOOP("Over eager replayed from a CUDA graph (launch overhead gone), timed "
                    "interleaved in the variant's own worker, with its 95 % interval"),
         true},
        {ValidationColumn, QT_TR_NOOP("Validation"), nullptr, false},
        {PrecisionColumn, QT_TR_NOOP("Precision"),
         QT_TR_NOOP("Kernel error against float64 \u00f7 eager float32's own error; above "
                    "--precision-ratio (32) the precision guard fires"),
         true},
        {MedianColumn, QT_TR_NOOP("Median ms"), nullptr, false},
        {IqrColumn, QT_TR_NOOP("IQR ms"), nullptr, false},
        {BandwidthColumn, QT_TR_NOOP("GB/s"), nullptr, false},
        {NoteColumn, QT_TR_NOOP("Note"), nullptr, false},
    };
    return specs;
}

const VariantsModel::ColumnSpec& VariantsModel::spec(int column) {
    const ColumnSpec& c = columnSpecs()[static_cast<size_t>(column)];
    Q_ASSERT(c.column == column); // the table lists the columns in enum order
    return c;
}

bool VariantsModel::isBadVerdict(const QString& verdict) {
    return verdict == QLatin1String("cheat") || verdict == QLatin1String("invalid") ||
           verdict == QLatin1String("failed") || verdict == QLatin1String("compile error") ||
           verdict == QLatin1String("refused");
}

bool VariantsModel::columnUsed(int column) const {
    if (column < 0 || column >= ColumnCount) return false;
    if (!spec(column).hiddenWhenUnused) return true;
    if (column == FileColumn) return m_parts.size() > 1;
    for (const auto& part : m_parts)
        for (const auto& v : part.task.variants) {
            if (column == ExpectColumn && !v.external.expect.empty()) return true;
            if (column == PrecisionColumn && std::isfinite(v.external.precisionRatio)) return true;
            if (column == VsCompiledColumn && v.versus("compiled")) return true;
            if (column == VsGraphColumn && v.versus("graph")) return true;
        }
    return false;
}

void VariantsModel::setTask(const ks::TaskBench* task) {
    std::vector<Source> sources;
    if (task) sources.push_back({task, {}, {}});
    setSources(sources);
}

void VariantsModel::setSources(const std::vector<Source>& sources) {
    beginResetModel();
    m_parts.clear();
    m_rows.clear();
    for (const auto& s : sources) {
        if (!s.task) continue;
        Part part{*s.task, s.file, s.device, ResultsUtil::speedupBars(*s.task)};
        for (size_t r = 0; r < part.bars.size(); ++r)
            m_rows.emplace_back(static_cast<int>(m_parts.size()), static_cast<int>(r));
        m_parts.push_back(std::move(part));
    }
    endResetModel();
}

int VariantsModel::sourceOf(int row) const {
    return row >= 0 && row < rowCount() ? m_rows[static_cast<size_t>(row)].first : -1;
}

int VariantsModel::variantOf(int row) const {
    if (row < 0 || row >= rowCount()) return -1;
    const auto [p, r] = m_rows[static_cast<size_t>(row)];
    return m_parts[static_cast<size_t>(p)].bars[static_cast<size_t>(r)].variant;
}

int VariantsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int VariantsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VariantsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int column = index.column();
    const auto [partIndex, r] = m_rows[static_cast<size_t>(index.row())];
    const Part& part = m_parts[static_cast<size_t>(partIndex)];
    const auto& bar = part.bars[static_cast<size_t>(r)];
    const ks::VariantResult* v =
        bar.variant < 0 ? nullptr : &part.task.variants[static_cast<size_t>(bar.variant)];
    const QString verdict = v || !bar.verdict.isEmpty() ? bar.verdict : QStringLiteral("reference");
    switch (role) {
    case Qt::DisplayRole:
        return display(part, r, column, v);
    case Qt::ToolTipRole:
        return toolTip(part, r, column, v);
    case Qt::BackgroundRole:
        return background(part, r, column, v);
    case VerdictRole:
        return verdict;
    case ExpectMetRole:
        if (v && column == ExpectColumn)
            if (const auto met = ResultsUtil::expectMet(*v)) return *met;
        return {};
    case Qt::FontRole:
        // A cheat or a failure reads at a glance; its speedup is struck out: not a result.
        if (column == VerdictColumn && isBadVerdict(verdict)) {
            QFont f;
            f.setBold(true);
            return f;
        }
        if (column == SpeedupColumn && isBadVerdict(verdict)) {
            QFont f;
            f.setStrikeOut(true);
            return f;
        }
        if (column == ExpectColumn && v && ResultsUtil::expectMet(*v) == false) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (column == SpeedupColumn && isBadVerdict(verdict)) return QColor(0x75, 0x75, 0x75);
        return {};
    }
    return {};
}

QVariant VariantsModel::display(const Part& part, int r, int column,
                                const ks::VariantResult* v) const {
    const auto& bar = part.bars[static_cast<size_t>(r)];
    const ks::BaselineRun* other = otherBaseline(part, bar);
    const ks::TimingStats& timing = timingOf(part, bar, v);
    auto versus = [&](const char* kind) -> QVariant {
        if (!v) return QString();
        const ks::BaselineComparison* c = v->versus(kind);
        if (!c || !std::isfinite(c->stats.ratio)) return Dash;
        if (c->stats.noMeasurableDifference())
            return tr("\u2248 1x [%1, %2]").arg(c->stats.lo, 0, 'g', 3).arg(c->stats.hi, 0, 'g', 3);
        if (c->stats.measured())
            return QStringLiteral("%1x [%2, %3]").arg(c->stats.ratio, 0, 'g', 3).arg(c->stats.lo, 0, 'g', 3).arg(c->stats.hi, 0, 'g', 3);
        return QStringLiteral("%1x").arg(c->stats.ratio, 0, 'g', 3);
    };
    if (other) {
        switch (column) {
        case NameColumn:
            return ResultsUtil::baselineName(bar.baseline) + tr(" (baseline)");
        case VerdictColumn:
            return bar.verdict;
        case FormatColumn:
            return bar.baseline == QLatin1String("compiled") ? tr("AOTInductor") : tr("CUDA graph");
        case ValidationColumn:
            if (!other->usable()) return Dash;
            if (!other->validation.run) return tr("not checked");
            return other->validation.passed ? tr("passed (%1 seeds, max err %2)")
                                                  .arg(other->validation.seeds)
                                                  .arg(other->validation.maxAbsErr, 0, 'g', 2)
                                            : tr("FAILED (%1)").arg(other->validation.failures.size());
        case VsCompiledColumn:
        case VsGraphColumn:
        case GuardsColumn:
        case PrecisionColumn:
        case BandwidthColumn:
        case ExpectColumn:
            return QString();
        default:
            break; // median, IQR, speedup over eager, note, file: as for any row
        }
    }
    switch (column) {
    case VsCompiledColumn:
        return versus("compiled");
    case VsGraphColumn:
        return versus("graph");
    case FileColumn:
        return part.device.isEmpty() ? part.file
                                     : QStringLiteral("%1 \u00b7 %2").arg(part.file, part.device);
    case NameColumn:
        return v ? bar.label : tr("PyTorch eager (baseline)");
    case VerdictColumn:
        return v ? ResultsUtil::verdictText(*v) : tr("reference");
    case FormatColumn:
        if (!v) return tr("eager");
        return v->isExternal() ? q(v->external.format) : tr("built-in");
    case GuardsColumn:
        if (!v) return QString();
        return bar.guards.isEmpty() ? Dash : bar.guards.join(QStringLiteral(", "));
    case ValidationColumn:
        if (!v) return tr("reference");
        if (v->isExternal() && !v->external.compiled) return tr("not compiled");
        if (!v->validation.run) return bar.kind == Kind::Failed ? tr("error") : tr("not run");
        return v->validation.passed ? tr("passed (%1 seeds, max err %2)")
                                          .arg(v->validation.seeds)
                                          .arg(v->validation.maxAbsErr, 0, 'g', 2)
                                    : tr("FAILED (%1)").arg(v->validation.failures.size());
    case PrecisionColumn: {
        // "1.7", "1024": no exponent notation for the ratios that trip the guard.
        const double r = v ? v->external.precisionRatio : ks::NaN;
        return !std::isfinite(r) ? Dash
               : r >= 100        ? QString::number(r, 'f', 0)
                                 : QString::number(r, 'g', 2);
    }
    case MedianColumn:
        return ms(timing.medianMs);
    case IqrColumn:
        return ms(timing.iqrMs());
    case SpeedupColumn:
        if (!std::isfinite(bar.speedup)) return Dash;
        // With its interval: "1.85x [1.80, 1.90]"; one holding 1 says so instead of a speedup.
        if (bar.interval && bar.noDifference)
            return tr("\u2248 1x (no measurable difference) [%1, %2]").arg(bar.low, 0, 'g', 3).arg(bar.high, 0, 'g', 3);
        if (bar.interval)
            return QStringLiteral("%1x [%2, %3]").arg(bar.speedup, 0, 'g', 3).arg(bar.low, 0, 'g', 3).arg(bar.high, 0, 'g', 3);
        return QStringLiteral("%1x").arg(bar.speedup, 0, 'g', 3);
    case BandwidthColumn:
        return v && std::isfinite(v->gbps) ? QString::number(v->gbps, 'f', 0) : Dash;
    case ExpectColumn: {
        if (!v || v->external.expect.empty()) return v && v->isExternal() ? Dash : QString();
        const QString expect = q(v->external.expect);
        // Disagreeing with the corpus is the news: a warning sign, bold and coloured.
        return ResultsUtil::expectMet(*v) == false ? QStringLiteral("\u26a0 ") + expect : expect;
    }
    case NoteColumn: {
        // A kernel that never compiled says why in the note: the compiler's first error.
        const QString kind = v && bar.kind == Kind::NotRun && isBadVerdict(bar.verdict)
                                 ? bar.verdict
                                 : ResultsUtil::speedupKindName(bar.kind);
        QString note = bar.note.isEmpty() ? kind : kind + QStringLiteral(": ") + bar.note;
        // A timed block whose SM clock moved (NVML) is said where the number is read.
        if (const int moved = timing.movedBlocks())
            note += tr("; \u26a0 clock moved in %1 of %2 timed blocks").arg(moved).arg(timing.clockBlocks.size());
        return note;
    }
    }
    return {};
}

QVariant VariantsModel::toolTip(const Part& part, int r, int column,
                                const ks::VariantResult* v) const {
    const auto& bar = part.bars[static_cast<size_t>(r)];
    if (column == FileColumn)
        return tr("%1, %2").arg(part.file,
                                part.device.isEmpty() ? tr("device not recorded") : part.device);
    if (column == MedianColumn) return ResultsUtil::clockSummary(timingOf(part, bar, v));
    // The speedup cells: the interval, the U test and the baseline's median behind them.
    if (column == SpeedupColumn || column == VsCompiledColumn || column == VsGraphColumn) {
        const char* kind = column == SpeedupColumn ? "eager" : column == VsCompiledColumn ? "compiled" : "graph";
        ks::SpeedupStats st;
        double baseMs = ks::NaN;
        if (v) {
            st = v->statsVs(kind);
            if (const auto* c = v->versus(kind)) baseMs = c->baselineMedianMs;
        } else if (column == SpeedupColumn) {
            if (const auto* o = otherBaseline(part, bar)) st = o->vsEager;
        }
        return ResultsUtil::speedupStatsText(st, ResultsUtil::baselineName(QString::fromLatin1(kind)), baseMs);
    }
    if (!v) return column == NoteColumn ? QVariant(bar.note) : QVariant();
    switch (column) {
    case NameColumn:
        if (!v->isExternal()) return q(v->summary);
        return tr("%1\nfile: %2").arg(q(v->name), q(v->external.file));
    case VerdictColumn: {
        const QString detail = ResultsUtil::verdictDetail(*v);
        QString tip;
        if (bar.verdict == QLatin1String("compile error"))
            tip = tr("compile error \u2014 first compiler error:\n%1").arg(detail);
        else
            tip = detail.isEmpty() ? bar.verdict : bar.verdict + QStringLiteral(": ") + detail;
        if (ResultsUtil::expectMet(*v) == false)
            tip += tr("\n\u26a0 the corpus manifest expects: %1").arg(q(v->external.expect));
        return tip;
    }
    case FormatColumn: {
        if (!v->isExternal()) return tr("a built-in variant of KernelSieve's kernels/");
        const auto& e = v->external;
        QStringList lines{tr("file: %1").arg(q(e.file))};
        if (!e.function.empty())
            lines << tr("calls: %1(%2)").arg(q(e.function), joined(e.args, QStringLiteral(", ")));
        if (e.compiled)
            lines << (e.cacheHit ? tr("compiled: from the cache")
                                 : tr("compiled in %1 s").arg(e.compileSeconds, 0, 'f', 1));
        if (!e.sourceHash.empty()) lines << tr("cache key: %1").arg(q(e.sourceHash).left(16));
        if (!e.kernelNames.empty())
            lines
                << tr("CUDA kernels launched: %1").arg(joined(e.kernelNames, QStringLiteral(", ")));
        if (!e.compileLog.empty())
            lines << tr("compiler log (end):\n%1").arg(logTail(e.compileLog, 12));
        return lines.join(QLatin1Char('\n'));
    }
    case GuardsColumn: {
        QStringList lines;
        for (const auto& h : v->guardHits)
            lines << q(h.guard) + QStringLiteral(": ") + q(h.detail);
        if (v->impossible && !v->hasGuard("impossible-speed"))
            lines << QStringLiteral("impossible-speed: ") + q(v->impossibleWhy);
        return lines.isEmpty() ? tr("no guard fired") : lines.join(QLatin1Char('\n'));
    }
    case ValidationColumn:
        return v->validation.failures.empty()
                   ? QVariant()
                   : QVariant(joined(v->validation.failures, QStringLiteral("\n")));
    case PrecisionColumn:
        if (!std::isfinite(v->external.precisionRatio)) return {};
        return tr("kernel error against float64 \u00f7 eager float32's own error: %1%2")
            .arg(v->external.precisionRatio, 0, 'g', 3)
            .arg(v->hasGuard("precision") ? tr(" \u2014 lower precision than the task")
                                          : QString());
    case ExpectColumn: {
        const auto met = ResultsUtil::expectMet(*v);
        if (!met)
            return v->external.expect.empty()
                       ? QVariant()
                       : QVariant(tr("the corpus manifest expects %1").arg(q(v->external.expect)));
        return *met ? tr("agrees with the corpus manifest")
                    : tr("the corpus manifest expects %1, the verdict is %2")
                          .arg(q(v->external.expect), ResultsUtil::verdictText(*v));
    }
    case NoteColumn:
        return bar.note;
    }
    return {};
}

QVariant VariantsModel::background(const Part& part, int r, int column,
                                   const ks::VariantResult* v) const {
    const auto& bar = part.bars[static_cast<size_t>(r)];
    if (column == VerdictColumn) {
        if (!v)
            return FilterMatrixModel::stateColor(bar.verdict == QLatin1String("invalid") ? State::Flagged
                                                 : bar.kind == Kind::NotRun             ? State::NotRun
                                                                                        : State::Passed);
        if (isBadVerdict(bar.verdict)) return FilterMatrixModel::stateColor(State::Flagged);
        if (bar.verdict == QLatin1String("valid"))
            return FilterMatrixModel::stateColor(v->shortcut ? State::Error : State::Passed);
        return FilterMatrixModel::stateColor(State::NotRun);
    }
    if (column == ValidationColumn) {
        switch (bar.kind) {
        case Kind::Failed:
            return FilterMatrixModel::stateColor(State::Flagged);
        case Kind::Passed:
        case Kind::Baseline:
            return FilterMatrixModel::stateColor(State::Passed);
        case Kind::Shortcut:
        case Kind::Impossible:
        case Kind::Cheat:
            return v && v->validation.run && !v->validation.passed
                       ? FilterMatrixModel::stateColor(State::Flagged)
                       : FilterMatrixModel::stateColor(State::Error);
        case Kind::NotRun:
            return FilterMatrixModel::stateColor(State::NotRun);
        }
    }
    if (!v) return {};
    if (column == GuardsColumn && bar.verdict == QLatin1String("cheat"))
        return FilterMatrixModel::stateColor(State::Flagged);
    if (column == PrecisionColumn && v->hasGuard("precision"))
        return FilterMatrixModel::stateColor(State::Flagged);
    if (column == ExpectColumn && ResultsUtil::expectMet(*v) == false)
        return FilterMatrixModel::stateColor(State::Error);
    return {};
}

QVariant VariantsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    const ColumnSpec& c = spec(section);
    if (role == Qt::DisplayRole) return tr(c.title);
    if (role == Qt::ToolTipRole && c.toolTip) return tr(c.toolTip);
    return {};
}
