// SPDX-License-Identifier: MIT
#include "rooflinemodel.h"

#include <algorithm>

#include <ks/core/analysisreports.h>

#include <QFont>

namespace {
QString bytesText(double b) {
    if (b >= 1e9) return QObject::tr("%1 GB").arg(b / 1e9, 0, 'g', 3);
    if (b >= 1e6) return QObject::tr("%1 MB").arg(b / 1e6, 0, 'g', 3);
    if (b >= 1e3) return QObject::tr("%1 kB").arg(b / 1e3, 0, 'g', 3);
    return QObject::tr("%1 B").arg(b, 0, 'g', 3);
}
QString ms(double v) { return QObject::tr("%1 ms").arg(v, 0, 'g', 4); }
} // namespace

RooflineModel::RooflineModel(QObject* parent) : QAbstractTableModel(parent) {}

void RooflineModel::setTask(const ks::TaskResult* task) {
    m_report.reset();
    m_taskFailed = task && task->status == ks::TaskStatus::Error;
    if (task && task->inefficiency) m_report = task->inefficiency;
    rebuild();
}

void RooflineModel::setThresholds(const ks::Thresholds& thresholds) {
    m_thresholds = thresholds;
    rebuild();
}

void RooflineModel::rebuild() {
    beginResetModel();
    m_rows.clear();
    auto add = [this](const QString& q, const QString& v, const QString& tip = {}, bool flagged = false) {
        m_rows.push_back({q, v, tip, flagged});
    };
    if (!m_report) {
        add(tr("Baseline inefficiency"),
            m_taskFailed ? tr("not analysed: the task failed") : tr("not run for this task"));
    } else if (!m_report->error.empty()) {
        add(tr("Baseline inefficiency"), tr("the analysis failed"), QString::fromStdString(m_report->error));
        add(tr("Error"), QString::fromStdString(m_report->error));
    } else {
        const auto& r = *m_report;
        const auto v = ks::inefficiencyVerdict(r, m_thresholds);
        const bool cpu = r.device == "cpu";
        add(tr("Timed on"),
            cpu ? tr("CPU (CPU timings: fastest of %1 calls)").arg(r.runs)
                : tr("CUDA (median of %1 calls)").arg(r.runs),
            tr("preset %1").arg(QString::fromUtf8(ks::presetName(r.preset))));
        add(tr("Verdict"),
            v.flagged() ? tr("flagged: %1").arg(QString::fromStdString(ks::inefficiencySummary(r, m_thresholds)))
                        : tr("passed"),
            QString::fromStdString(ks::criterionRuleText(ks::Criterion::BaselineInefficiency, m_thresholds)),
            v.flagged());
        add(tr("Fewest bytes"), bytesText(r.bytes), tr("inputs and parameters read once, the output written once"));
        add(tr("FLOPs"), QString::number(r.flops, 'g', 3), tr("graph estimate from one real run's shapes"));
        add(tr("Bandwidth at this size"), tr("%1 GB/s").arg(r.bandwidthGBs, 0, 'g', 3),
            tr("the device's measured copy bandwidth, interpolated at this task's byte count"));
        add(tr("Memory floor"), ms(r.memoryFloorMs));
        add(tr("Compute floor"), ms(r.computeFloorMs));
        const bool serial = r.serialSteps > 0 && r.serialFloorMs >= std::max(r.memoryFloorMs, r.computeFloorMs);
        if (r.serialSteps > 0)
            add(tr("Serial floor"), ms(r.serialFloorMs),
                tr("%1 recurrent steps that run one after another, each at least one launch (%2)")
                    .arg(r.serialSteps, 0, 'g', 6)
                    .arg(ms(r.launchMs)));
        add(tr("Floor"), tr("%1 (%2-bound)")
                             .arg(ms(r.floorMs), serial ? tr("serial") : r.memoryBound ? tr("memory") : tr("compute")));
        add(tr("Eager time"), ms(r.eagerMs) + (cpu ? tr(" (CPU)") : QString()),
            tr("median %1").arg(ms(r.eagerMedianMs)));
        if (r.launchMs > 0)
            add(tr("Launch-bound"),
                r.launchBound ? tr("yes: eager \u2264 %1").arg(ms(r.launchBoundLimitMs()))
                              : tr("no: eager > %1").arg(ms(r.launchBoundLimitMs())),
                tr("2 x %n launch(es) x one launch (%1); a launch-bound task's efficiency and passes do not flag",
                   nullptr, std::max(r.launches, 1))
                    .arg(ms(r.launchMs)));
        if (r.graphMs > 0)
            add(tr("Graph replay"),
                tr("%1 (host dispatch %2, %3% of eager)")
                    .arg(ms(r.graphMs), ms(r.dispatchMs()))
                    .arg(100.0 * r.dispatchShare(), 0, 'f', 0),
                tr("the eager forward captured in a CUDA graph and replayed: its kernels without the host's "
                   "dispatch of each op (one replayed kernel: %1). Information: the verdicts use the eager time.")
                    .arg(ms(r.graphLaunchMs)));
        else if (!r.graphError.empty())
            add(tr("Graph replay"), tr("not measured"), QString::fromStdString(r.graphError));
        if (r.hostSyncs >= 0)
            add(tr("Host waits"), r.hostSyncs == 0 ? tr("none") : tr("%1 per forward").arg(r.hostSyncs),
                tr("times one eager forward makes the host wait for the GPU (a value read back, a stream "
                   "synchronisation): the eager time includes the waits, and such a forward cannot be "
                   "captured in a CUDA graph. Information: flags nothing."));
        add(tr("Efficiency"), QString::number(r.efficiency, 'g', 3),
            tr("floor / eager time; flags below %1").arg(m_thresholds.value(ks::Threshold::BaselineEfficiency)),
            v.efficiency);
        add(tr("Eager traffic"), r.eagerTrafficBytes > 0 ? bytesText(r.eagerTrafficBytes) : tr("not measured"),
            tr("bytes the eager graph moves: every non-view op reads its operands and writes its output"));
        add(tr("Passes"), r.passes > 0 ? QString::number(r.passes, 'g', 3) : tr("not measured"),
            tr("eager traffic / fewest bytes; flags at \u2265 %1 when memory-bound")
                .arg(m_thresholds.value(ks::Threshold::BaselinePasses)),
            v.passes);
        add(tr("Best rewrite"),
            r.bestRule.empty() ? tr("none faster")
                               : tr("%1x %2").arg(r.bestSpeedup, 0, 'g', 3).arg(QString::fromStdString(r.bestRule)),
            tr("flags at \u2265 %1x").arg(m_thresholds.value(ks::Threshold::BaselineRewriteSpeedup)), v.rewrite);
        for (const auto& note : r.notes) add(tr("Note"), QString::fromStdString(note));
    }
    endResetModel();
}

QString RooflineModel::value(const QString& quantity) const {
    for (const auto& r : m_rows)
        if (r.quantity == quantity) return r.value;
    return {};
}

int RooflineModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RooflineModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RooflineModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto& row = m_rows[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == QuantityColumn) return row.quantity;
        return (row.flagged ? QStringLiteral("\u2691 ") : QString()) + row.value;
    case Qt::ToolTipRole:
        return row.tip.isEmpty() ? QVariant() : QVariant(row.tip);
    case Qt::FontRole:
        if (row.flagged) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case FlaggedRole:
        return row.flagged;
    }
    return {};
}

QVariant RooflineModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == QuantityColumn ? tr("Quantity") : tr("Value");
}
