// SPDX-License-Identifier: MIT
#include "runinfomodel.h"

RunInfoModel::RunInfoModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunInfoModel::setRunInfo(const ks::RunInfo& r, const ks::Thresholds& th, int taskCount) {
    beginResetModel();
    m_rows.clear();
    auto add = [this](const QString& key, const std::string& value) {
        m_rows.emplace_back(key, value.empty() ? QStringLiteral("\u2014")
                                               : QString::fromStdString(value));
    };
    QString device = QString::fromStdString(r.device);
    if (!r.deviceName.empty())
        device += QStringLiteral(" (%1)").arg(QString::fromStdString(r.deviceName));
    m_rows.emplace_back(tr("Device"), device.isEmpty() ? QStringLiteral("\u2014") : device);
    add(tr("LibTorch"), r.libtorchVersion);
    add(tr("CUDA"), r.cudaVersion);
    add(tr("Driver"), r.driver);
    add(tr("Suite"), r.suite);
    add(tr("Preset"), r.preset);
    m_rows.emplace_back(tr("Seeds"), QString::number(r.seeds));
    m_rows.emplace_back(tr("Input-impact parameter seed"), QString::number(r.inputImpactParamSeed));
    m_rows.emplace_back(tr("Tasks"), QString::number(taskCount));
    m_rows.emplace_back(tr("Total time"), tr("%1 s").arg(r.totalSeconds, 0, 'f', 1));
    m_rows.emplace_back(tr("Peak memory"),
                        r.peakMemoryBytes > 0
                            ? tr("%1 MiB").arg(double(r.peakMemoryBytes) / (1 << 20), 0, 'f', 1)
                            : QStringLiteral("\u2014"));
    m_rows.emplace_back(tr("Cancelled"), r.cancelled ? tr("yes (partial results)") : tr("no"));
    add(tr("Created"), r.created);
    add(tr("Host"), r.host);
    add(tr("Host huge pages"), r.hostHugePages);
    add(tr("Tool version"), r.toolVersion);
    if (r.ceilings) {
        // What filter 5's roofline used; CPU ceilings make its timings CPU timings.
        const auto& c = *r.ceilings;
        m_rows.emplace_back(tr("Device ceilings (filter 5)"),
                            tr("%1 (%2): copy %3 GB/s, FP32 %4 GFLOP/s; %5")
                                .arg(QString::fromStdString(c.device == "cpu" ? "CPU" : "CUDA"),
                                     QString::fromStdString(c.deviceName))
                                .arg(c.copyBandwidthGBs, 0, 'f', 1)
                                .arg(c.fp32PeakGflops, 0, 'f', 1)
                                .arg(QString::fromStdString(c.source.empty() ? c.measured : c.source)));
    }
    QStringList ths;
    for (const auto& i : ks::thresholdInfos())
        ths << QString::fromStdString(ks::thresholdRuleText(i.threshold, th.value(i.threshold)));
    m_rows.emplace_back(tr("Thresholds in file"),
                        QStringLiteral("%1: %2").arg(QString::fromStdString(th.profile),
                                                     ths.join(QStringLiteral(", "))));
    endResetModel();
}

QString RunInfoModel::value(const QString& key) const {
    for (const auto& [k, v] : m_rows)
        if (k == key) return v;
    return {};
}

int RunInfoModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunInfoModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunInfoModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    const auto& row = m_rows[static_cast<size_t>(index.row())];
    return index.column() == KeyColumn ? row.first : row.second;
}

QVariant RunInfoModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case KeyColumn:
        return tr("Setting");
    case ValueColumn:
        return tr("Value");
    }
    return {};
}
