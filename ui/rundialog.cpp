// SPDX-License-Identifier: MIT
#include "rundialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

RunDialog::RunDialog(const RunClient::Options& defaults, const QStringList& selected, bool hasGpu,
                     QWidget* parent)
    : QDialog(parent), m_selected(selected) {
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
    m_device->addItem(tr("Auto"), QStringLiteral("auto"));
    m_device->addItem(tr("CUDA GPU"), QStringLiteral("cuda"));
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->setCurrentIndex(std::max(0, m_device->findData(defaults.device)));
    form->addRow(tr("Device:"), m_device);
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
        auto* note =
            new QLabel(tr("No GPU was found: the run uses the CPU with the small preset."));
        note->setObjectName(QStringLiteral("noGpuNote"));
        note->setWordWrap(true);
        note->setStyleSheet(QStringLiteral("color: #e65100"));
        layout->addWidget(note);
        m_device->setCurrentIndex(m_device->findData(QStringLiteral("cpu")));
        m_preset->setCurrentIndex(m_preset->findData(QStringLiteral("small")));
    }

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void RunDialog::setSelectedOnly(bool on) {
    (on && m_some->isEnabled() ? m_some : m_all)->setChecked(true);
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
    return o;
}
