// SPDX-License-Identifier: MIT
#include "rundialog.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QVBoxLayout>

RunDialog::RunDialog(const RunClient::Options& defaults, const QStringList& selected, bool hasGpu,
                     QWidget* parent)
    : QDialog(parent), m_selected(selected), m_hasGpu(hasGpu) {
    setWindowTitle(tr("Run the filters"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;

    m_all = new QRadioButton(tr("The whole suite"));
    m_some = new QRadioButton(
        selected.isEmpty()
            ? tr("Selected tasks (none selected)")
            : tr("Selected tasks (%1): %2")
                  .arg(selected.size())
                  .arg(QStringList(selected.mid(0, 6)).join(QStringLiteral(", ")) +
                       (selected.size() > 6 ? QStringLiteral(", \u2026") : QString())));
    m_some->setEnabled(!selected.isEmpty());
    (defaults.taskIds.isEmpty() || selected.isEmpty() ? m_all : m_some)->setChecked(true);
    auto* scope = new QVBoxLayout;
    scope->addWidget(m_all);
    scope->addWidget(m_some);
    form->addRow(tr("Tasks:"), scope);

    auto* suiteRow = new QHBoxLayout;
    m_suite = new QLineEdit(defaults.suite.isEmpty() ? QStringLiteral("builtin") : defaults.suite);
    m_suite->setToolTip(tr("'builtin' or a suite folder"));
    auto* browse = new QPushButton(tr("Folder\u2026"));
    suiteRow->addWidget(m_suite);
    suiteRow->addWidget(browse);
    form->addRow(tr("Suite:"), suiteRow);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Suite folder"));
        if (!dir.isEmpty()) m_suite->setText(dir);
    });

    m_seeds = new QSpinBox;
    m_seeds->setRange(2, 10000); // one seed has no std across seeds
    m_seeds->setValue(defaults.seeds);
    form->addRow(tr("Seeds:"), m_seeds);

    m_preset = new QComboBox;
    m_preset->addItem(tr("Default for the device"), QString());
    m_preset->addItem(tr("Small (reduced shapes, CPU friendly)"), QStringLiteral("small"));
    m_preset->addItem(tr("Full (KernelBench shapes)"), QStringLiteral("full"));
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(defaults.preset)));
    form->addRow(tr("Preset:"), m_preset);

    m_device = new QComboBox;
    m_device->setObjectName(QStringLiteral("runDevice"));
    m_device->addItem(tr("Auto"), QStringLiteral("auto"));
    m_device->addItem(tr("CUDA GPU"), QStringLiteral("cuda"));
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->setCurrentIndex(std::max(0, m_device->findData(defaults.device)));
    form->addRow(tr("Device:"), m_device);
    // filter --devices / --workers-per-gpu: the tasks spread over GPUs (one results file, the same
    // flags as on one GPU); several workers on a GPU overlap one task's drawing with another's.
    auto* gpuRow = new QHBoxLayout;
    m_gpus = new QLineEdit(defaults.gpus);
    m_gpus->setObjectName(QStringLiteral("runGpus"));
    m_gpus->setPlaceholderText(tr("the first GPU"));
    m_gpus->setToolTip(tr("\"all\" or GPU numbers such as 0,1 (filter --devices)"));
    m_gpus->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("all|[0-9]+(,[0-9]+)*,?")), m_gpus));
    m_workersPerGpu = new QSpinBox;
    m_workersPerGpu->setObjectName(QStringLiteral("runWorkersPerGpu"));
    m_workersPerGpu->setRange(1, 8);
    m_workersPerGpu->setValue(std::clamp(defaults.workersPerGpu, 1, 8));
    gpuRow->addWidget(m_gpus, 1);
    gpuRow->addWidget(new QLabel(tr("workers per GPU:")));
    gpuRow->addWidget(m_workersPerGpu);
    form->addRow(tr("GPUs:"), gpuRow);
    auto gpusApply = [this] {
        const bool cpu = m_device->currentData().toString() == QLatin1String("cpu");
        m_gpus->setEnabled(!cpu);
        m_workersPerGpu->setEnabled(!cpu);
    };
    connect(m_device, &QComboBox::currentIndexChanged, this, gpusApply);
    // Filters 1-4 always run (one pass over the seeds measures all four); 5 and 6 are analyses of
    // the graph (on the idle 2-core CPU box they double a small-preset run: 3 s -> 7 s for the
    // built-in suite), so they can be left out of a quick re-run.
    auto* analyses = new QVBoxLayout;
    m_inefficiency = new QCheckBox(tr("Baseline inefficiency (filter 5: roofline, rewrites)"));
    m_inefficiency->setObjectName(QStringLiteral("runInefficiency"));
    m_inefficiency->setChecked(defaults.inefficiency);
    m_redundancy = new QCheckBox(tr("Redundant computation (filter 6: dataflow, ablation)"));
    m_redundancy->setObjectName(QStringLiteral("runRedundancy"));
    m_redundancy->setChecked(defaults.redundancy);
    analyses->addWidget(m_inefficiency);
    analyses->addWidget(m_redundancy);
    form->addRow(tr("Analyses:"), analyses);
    layout->addLayout(form);

    if (!hasGpu) {
        m_noGpuNote =
            new QLabel(tr("No GPU was found: the run uses the CPU with the small preset."));
        m_noGpuNote->setObjectName(QStringLiteral("noGpuNote"));
        m_noGpuNote->setWordWrap(true);
        m_noGpuNote->setStyleSheet(QStringLiteral("color: #e65100"));
        layout->addWidget(m_noGpuNote);
        m_device->setCurrentIndex(m_device->findData(QStringLiteral("cpu")));
        m_preset->setCurrentIndex(m_preset->findData(QStringLiteral("small")));
    }
    gpusApply();

    m_deviceNote = new QLabel;
    m_deviceNote->setObjectName(QStringLiteral("deviceNote"));
    m_deviceNote->setWordWrap(true);
    m_deviceNote->setStyleSheet(QStringLiteral("color: #c62828"));
    m_deviceNote->hide();
    layout->addWidget(m_deviceNote);

    // Only a run of selected tasks can go into the open file; the whole suite always makes new
    // results (the open file stays on disk as it was).
    m_target = new QGroupBox(tr("Results of the selected tasks"));
    m_target->setObjectName(QStringLiteral("runTarget"));
    auto* targetLayout = new QVBoxLayout(m_target);
    m_merge = new QRadioButton(tr("Replace their rows in the open results"));
    m_merge->setObjectName(QStringLiteral("mergeInto"));
    m_separate = new QRadioButton(tr("Open as separate results (the open file is not changed)"));
    m_separate->setObjectName(QStringLiteral("separateResults"));
    m_mergeNote = new QLabel;
    m_mergeNote->setObjectName(QStringLiteral("mergeNote"));
    m_mergeNote->setWordWrap(true);
    m_mergeNote->hide();
    targetLayout->addWidget(m_merge);
    targetLayout->addWidget(m_separate);
    targetLayout->addWidget(m_mergeNote);
    m_merge->setChecked(true);
    m_target->hide();
    layout->addWidget(m_target);

    connect(m_all, &QRadioButton::toggled, this, &RunDialog::updateMerge);
    connect(m_suite, &QLineEdit::textChanged, this, &RunDialog::updateMerge);
    connect(m_seeds, &QSpinBox::valueChanged, this, &RunDialog::updateMerge);
    connect(m_preset, &QComboBox::currentIndexChanged, this, &RunDialog::updateMerge);
    connect(m_device, &QComboBox::currentIndexChanged, this, &RunDialog::updateMerge);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void RunDialog::setSelectedOnly(bool on) {
    (on && m_some->isEnabled() ? m_some : m_all)->setChecked(true);
    updateMerge();
}

void RunDialog::setOpenResults(const QString& name, const ks::RunInfo& run,
                               const QString& workerDevice, const QString& workerDescription) {
    m_hasFile = true;
    m_fileName = name;
    m_fileRun = run;
    m_workerDevice = workerDevice;
    const QString fileDevice = QString::fromStdString(run.device);
    const QString fileDeviceText =
        run.deviceName.empty()
            ? fileDevice
            : QStringLiteral("%1 (%2)").arg(fileDevice, QString::fromStdString(run.deviceName));
    // The file's settings are the defaults: a re-run that silently used the built-in suite at
    // the small preset replaced 2048x2048 rows of a KernelBench file with 256x256 ones.
    if (!run.suite.empty()) m_suite->setText(QString::fromStdString(run.suite));
    if (run.seeds >= m_seeds->minimum()) m_seeds->setValue(run.seeds);
    if (const int i = m_preset->findData(QString::fromStdString(run.preset)); i >= 0)
        m_preset->setCurrentIndex(i);
    const bool workerHasCuda =
        workerDevice == QLatin1String("cuda") || (workerDevice.isEmpty() && m_hasGpu);
    if (fileDevice == QLatin1String("cpu") ||
        (fileDevice == QLatin1String("cuda") && workerHasCuda))
        m_device->setCurrentIndex(m_device->findData(fileDevice));

    QString note;
    if (fileDevice == QLatin1String("cuda") && workerDevice == QLatin1String("cpu"))
        note = tr("%1 was measured on %2; this machine's worker has no GPU, so a run here uses the "
                  "CPU. Its results cannot go into %1: they open as separate results.%3")
                   .arg(name, fileDeviceText,
                        run.preset == "full"
                            ? tr(" The file's full KernelBench shapes can take hours on a CPU; "
                                 "the small preset takes minutes.")
                            : QString());
    else if (fileDevice == QLatin1String("cuda") && workerDevice == QLatin1String("cuda") &&
             !run.deviceName.empty() && !workerDescription.isEmpty() &&
             !workerDescription.startsWith(QString::fromStdString(run.deviceName)))
        note = tr("%1 was measured on %2; this machine's GPU is %3. Its results cannot go into %1: "
                  "they open as separate results.")
                   .arg(name, fileDeviceText, workerDescription);
    if (!note.isEmpty()) {
        m_deviceNote->setText(note);
        m_deviceNote->show();
        if (m_noGpuNote) m_noGpuNote->hide(); // the device note says it, with the file's device
    }
    m_merge->setText(tr("Replace their rows in %1").arg(name));
    m_target->show();
    updateMerge();
}

void RunDialog::updateMerge() {
    if (!m_hasFile) return;
    const RunClient::Options o = options();
    QStringList why;
    const QString fileSuite = QString::fromStdString(m_fileRun.suite);
    if (!fileSuite.isEmpty() && o.suite != fileSuite)
        why << tr("suite %1 (the file: %2)").arg(o.suite, fileSuite);
    if (m_fileRun.seeds > 0 && o.seeds != m_fileRun.seeds)
        why << tr("%1 seeds (the file: %2)").arg(o.seeds).arg(m_fileRun.seeds);
    // "auto" and the device's default preset resolve on the worker: what it will be, if known.
    const QString device = o.device == QLatin1String("auto") ? m_workerDevice : o.device;
    const QString fileDevice = QString::fromStdString(m_fileRun.device);
    if (!fileDevice.isEmpty() && !device.isEmpty() && device != fileDevice)
        why << tr("device %1 (the file: %2)").arg(device, fileDevice);
    const QString preset = !o.preset.isEmpty()               ? o.preset
                           : device == QLatin1String("cuda") ? QStringLiteral("full")
                           : device == QLatin1String("cpu")  ? QStringLiteral("small")
                                                             : QString();
    const QString filePreset = QString::fromStdString(m_fileRun.preset);
    if (!filePreset.isEmpty() && !preset.isEmpty() && preset != filePreset)
        why << tr("preset %1 (the file: %2)").arg(preset, filePreset);
    if (!m_deviceNote->isHidden() && why.isEmpty()) why << tr("the device (see above)");
    m_mergeProblem = why.join(QStringLiteral(", "));

    const bool selected = m_some->isChecked();
    m_target->setEnabled(selected);
    m_merge->setEnabled(selected && m_mergeProblem.isEmpty());
    if (!m_merge->isEnabled())
        m_separate->setChecked(true);
    else if (!m_mergeNote->isHidden())
        m_merge->setChecked(true); // back once the cause is gone
    if (!selected)
        m_mergeNote->setText(
            tr("The whole suite opens as new results; %1 is not changed.").arg(m_fileName));
    else if (!m_mergeProblem.isEmpty())
        m_mergeNote->setText(tr("<b>Not merged:</b> this run differs from %1 in %2. One results "
                                "file holds one run, so it opens as separate results.")
                                 .arg(m_fileName.toHtmlEscaped(), m_mergeProblem.toHtmlEscaped()));
    m_mergeNote->setVisible(!selected || !m_mergeProblem.isEmpty());
}

bool RunDialog::separateResults() const {
    return !m_some->isChecked() || (m_hasFile && m_separate->isChecked());
}

RunClient::Options RunDialog::options() const {
    RunClient::Options o;
    o.suite =
        m_suite->text().trimmed().isEmpty() ? QStringLiteral("builtin") : m_suite->text().trimmed();
    o.seeds = m_seeds->value();
    o.preset = m_preset->currentData().toString();
    o.device = m_device->currentData().toString();
    if (m_some->isChecked()) o.taskIds = m_selected;
    o.inefficiency = m_inefficiency->isChecked();
    o.redundancy = m_redundancy->isChecked();
    if (m_gpus->isEnabled()) {
        o.gpus = m_gpus->text().trimmed();
        if (o.gpus.endsWith(QLatin1Char(','))) o.gpus.chop(1);
        o.workersPerGpu = m_workersPerGpu->value();
    }
    return o;
}
