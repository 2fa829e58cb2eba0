// SPDX-License-Identifier: MIT
#pragma once
// Every threshold of the active profile, editable. Each edit is applied at once (the matrix
// re-derives flags from stored metrics); "Reset" returns to the profile, and profiles can be
// loaded from and saved to kernelsieve.profile files. Lays out in two rows (top/bottom dock: the
// statistical filters and the borderline margin, then filters 5-6 with their four bounds and zeros
// pass with its two tolerances) or one column (side dock).

#include <models/metatypes.h>

#include <QWidget>

#include <array>
#include <vector>

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
    // The profile "Reset" returns to (`path`: the file it came from, empty for built-in ones and
    // a results file's thresholds); also selects it in the combo.
    void setProfile(const ks::Thresholds& profile, const QString& path = {});
    const ks::Thresholds& profile() const { return m_profile; }
    // The file the profile was loaded from; empty for built-in profiles.
    QString profilePath() const { return m_profilePath; }
    void resetToProfile();
    bool isModified() const;

    bool loadProfile(const QString& path, QString* error);
    bool saveProfile(const QString& path, QString* error) const;

    void setCounts(const std::array<int, ks::CriterionCount>& flagged);
    void setOrientation(Qt::Orientation orientation);

    // The criterion's primary threshold (the only one of filters 1-4).
    QDoubleSpinBox* spinBox(ks::Criterion c) const;
    QDoubleSpinBox* spinBox(ks::Threshold t) const { return m_spins[static_cast<size_t>(t)]; }
    QLabel* countLabel(ks::Criterion c) const { return m_counts[static_cast<size_t>(c)]; }
    QComboBox* profileBox() const { return m_profileBox; }
    QDoubleSpinBox* marginSpinBox() const { return m_margin; }

  signals:
    void thresholdsChanged(const ks::Thresholds& thresholds);
    // After the user picked a profile in the combo or loadProfile() loaded one (and the values
    // were applied): the thresholds are now the user's choice, not a file's.
    void profileChosen();
    void loadRequested();
    void saveRequested();

  private:
    void onSpinChanged();
    void updateProfileLabel();

    ks::Thresholds m_profile = ks::Thresholds::defaults();
    QString m_profilePath;
    std::array<QDoubleSpinBox*, ks::ThresholdCount> m_spins{};
    std::array<QLabel*, ks::CriterionCount> m_counts{};
    std::array<QBoxLayout*, 2> m_rows{}; // statistics; filters 5-6
    std::vector<QBoxLayout*> m_groups;   // one per criterion of filters 5-6
    QDoubleSpinBox* m_margin = nullptr;  // Thresholds::borderlineMargin
    QComboBox* m_profileBox = nullptr;
    QLabel* m_modified = nullptr;
    QPushButton* m_reset = nullptr;
    QBoxLayout* m_layout = nullptr;
    bool m_updating = false;
};
