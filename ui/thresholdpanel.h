// SPDX-License-Identifier: MIT
#pragma once
// Every threshold of the active profile, editable. Each edit is applied at once (the matrix
// re-derives flags from stored metrics); "Reset" returns to the profile, and profiles can be
// loaded from and saved to kernelsieve.profile files. Lays out in a row (top/bottom dock) or a
// column (side dock).

#include <models/metatypes.h>

#include <QWidget>

#include <array>

class QBoxLayout;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;

class ThresholdPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ThresholdPanel(QWidget* parent = nullptr);

    ks::Thresholds thresholds() const;
    // Sets the values (and the profile they came from) and emits thresholdsChanged once.
    void setThresholds(const ks::Thresholds& thresholds);
    // The profile "Reset" returns to; also selects it in the combo.
    void setProfile(const ks::Thresholds& profile);
    const ks::Thresholds& profile() const { return m_profile; }
    // The file the profile was loaded from; empty for built-in profiles.
    QString profilePath() const { return m_profilePath; }
    void resetToProfile();
    bool isModified() const;

    bool loadProfile(const QString& path, QString* error);
    bool saveProfile(const QString& path, QString* error) const;

    void setCounts(const std::array<int, ks::CriterionCount>& flagged);
    void setOrientation(Qt::Orientation orientation);

    QDoubleSpinBox* spinBox(ks::Criterion c) const { return m_spins[static_cast<size_t>(c)]; }
    QComboBox* profileBox() const { return m_profileBox; }

  signals:
    void thresholdsChanged(const ks::Thresholds& thresholds);
    void loadRequested();
    void saveRequested();

  private:
    void onSpinChanged();
    void updateProfileLabel();

    ks::Thresholds m_profile = ks::Thresholds::defaults();
    QString m_profilePath;
    std::array<QDoubleSpinBox*, ks::CriterionCount> m_spins{};
    std::array<QLabel*, ks::CriterionCount> m_counts{};
    QComboBox* m_profileBox = nullptr;
    QLabel* m_modified = nullptr;
    QPushButton* m_reset = nullptr;
    QBoxLayout* m_layout = nullptr;
    bool m_updating = false;
};
