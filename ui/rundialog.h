// SPDX-License-Identifier: MIT
#pragma once
// What to run: the whole suite or the selected tasks, with seeds, preset and device (and on a
// GPU machine, which GPUs and how many workers share each). On a
// machine without a GPU it says so and defaults to the CPU and the small preset. With a results
// file open, its suite, preset, seeds and device are the defaults, a device other than the file's
// is said plainly, and a run of selected tasks either merges into the file (only when nothing of
// that differs: one file never mixes runs) or opens as separate results.

#include "runclient.h"

#include <QDialog>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

class RunDialog : public QDialog {
    Q_OBJECT
  public:
    RunDialog(const RunClient::Options& defaults, const QStringList& selected, bool hasGpu,
              QWidget* parent = nullptr);

    // The open results: `name` (its file name, or "the open results"), the run that measured it
    // and the worker's device ("cuda" | "cpu" | "" unknown) and its description ("NVIDIA H200").
    // Takes suite, seeds, preset and device from `run` as the defaults.
    void setOpenResults(const QString& name, const ks::RunInfo& run, const QString& workerDevice,
                        const QString& workerDescription);

    RunClient::Options options() const;
    void setSelectedOnly(bool on);
    // True when the run goes to new results: the whole suite, the user's choice, or a run whose
    // settings differ from the open file's.
    bool separateResults() const;
    // Why the chosen settings cannot merge into the open file ("" when they can, or no file).
    QString mergeProblem() const { return m_mergeProblem; }

  private:
    void updateMerge();

    QStringList m_selected;
    QRadioButton* m_all = nullptr;
    QRadioButton* m_some = nullptr;
    QLineEdit* m_suite = nullptr;
    QSpinBox* m_seeds = nullptr;
    QComboBox* m_preset = nullptr;
    QComboBox* m_device = nullptr;
    QLineEdit* m_gpus = nullptr;
    QSpinBox* m_workersPerGpu = nullptr;
    QCheckBox* m_inefficiency = nullptr;
    QCheckBox* m_redundancy = nullptr;
    QLabel* m_noGpuNote = nullptr;
    QLabel* m_deviceNote = nullptr;
    QGroupBox* m_target = nullptr;
    QRadioButton* m_merge = nullptr;
    QRadioButton* m_separate = nullptr;
    QLabel* m_mergeNote = nullptr;

    bool m_hasGpu = true;
    bool m_hasFile = false;
    QString m_fileName;
    ks::RunInfo m_fileRun;
    QString m_workerDevice;
    QString m_mergeProblem;
};
