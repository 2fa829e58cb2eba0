// SPDX-License-Identifier: MIT
#pragma once
// What to run: the whole suite or the selected tasks, with seeds, preset and device. On a
// machine without a GPU it says so and defaults to the CPU and the small preset.

#include "runclient.h"

#include <QDialog>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

class RunDialog : public QDialog {
    Q_OBJECT
  public:
    RunDialog(const RunClient::Options& defaults, const QStringList& selected, bool hasGpu,
              QWidget* parent = nullptr);

    RunClient::Options options() const;
    void setSelectedOnly(bool on);

  private:
    QStringList m_selected;
    QRadioButton* m_all = nullptr;
    QRadioButton* m_some = nullptr;
    QLineEdit* m_suite = nullptr;
    QSpinBox* m_seeds = nullptr;
    QComboBox* m_preset = nullptr;
    QComboBox* m_device = nullptr;
    QCheckBox* m_inefficiency = nullptr;
    QCheckBox* m_redundancy = nullptr;
};
