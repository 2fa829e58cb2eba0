// SPDX-License-Identifier: MIT
#include "thresholdpanel.h"

#include <ks/core/criteria.h>
#include <ks/core/results.h>
#include <ks/core/taskspec.h>

#include <QBoxLayout>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>

#include <cmath>

namespace {

// Thresholds span orders of magnitude (1e-5 .. 1), so: 'g' formatting, scientific input, and
// arrow steps along 1-2-5 (0.005, 0.01, 0.02, ...) instead of a fixed increment.
class ThresholdSpinBox : public QDoubleSpinBox {
  public:
    ThresholdSpinBox() {
        setDecimals(12);
        setRange(0, 1e12);
        setKeyboardTracking(true);
        setAccelerated(true);
        setMinimumWidth(76);
    }

    QString textFromValue(double value) const override { return QString::number(value, 'g', 6); }

    double valueFromText(const QString& text) const override {
        bool ok = false;
        const double v = text.trimmed().toDouble(&ok);
        return ok ? v : locale().toDouble(text.trimmed());
    }

    QValidator::State validate(QString& input, int&) const override {
        const QString t = input.trimmed();
        if (t.isEmpty() || t == QLatin1String("-") || t.endsWith(QLatin1Char('e')) ||
            t.endsWith(QLatin1String("e-")) || t.endsWith(QLatin1Char('.')))
            return QValidator::Intermediate;
        bool ok = false;
        const double v = t.toDouble(&ok);
        if (!ok) return QValidator::Invalid;
        return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    }

    void stepBy(int steps) override {
        double v = value();
        for (int i = 0; i < std::abs(steps); ++i)
            v = steps > 0 ? next(v) : previous(v);
        setValue(v);
    }

  private:
    static double next(double v) {
        if (v <= 0) return 1e-6;
        const double e = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
        for (double m : {1.0, 2.0, 5.0, 10.0})
            if (m * e > v * (1 + 1e-9)) return m * e;
        return 10 * e;
    }
    static double previous(double v) {
        if (v <= 1e-6) return 0;
        const double e = std::pow(10.0, std::floor(std::log10(v) - 1e-9));
        for (double m : {5.0, 2.0, 1.0})
            if (m * e < v * (1 - 1e-9)) return m * e;
        return e;
    }
};

} // namespace

ThresholdPanel::ThresholdPanel(QWidget* parent) : QWidget(parent) {
    m_layout = new QBoxLayout(QBoxLayout::LeftToRight, this);
    m_layout->setContentsMargins(6, 2, 6, 2);

    auto* profileCell = new QHBoxLayout;
    profileCell->addWidget(new QLabel(tr("Profile:")));
    m_profileBox = new QComboBox;
    m_profileBox->setObjectName(QStringLiteral("profile"));
    for (const auto& name : ks::builtinProfileNames())
        m_profileBox->addItem(QString::fromStdString(name));
    profileCell->addWidget(m_profileBox);
    m_modified = new QLabel;
    m_modified->setObjectName(QStringLiteral("modified"));
    profileCell->addWidget(m_modified);
    m_layout->addLayout(profileCell);

    for (const auto& c : ks::criteria()) {
        const auto i = static_cast<size_t>(c.criterion);
        auto* cell = new QHBoxLayout;
        // "Range <" rather than "Output Range <": the row must fit a 1280-pixel window.
        auto* label =
            new QLabel(tr("%1 <").arg(QString::fromUtf8(c.label).section(QLatin1Char(' '), -1)));
        label->setToolTip(
            tr("Flag when %1 < threshold: %2")
                .arg(QString::fromUtf8(c.metricLabel), QString::fromUtf8(c.description)));
        auto* spin = new ThresholdSpinBox;
        spin->setObjectName(QString::fromUtf8(c.key));
        spin->setToolTip(label->toolTip());
        label->setBuddy(spin);
        m_spins[i] = spin;
        m_counts[i] = new QLabel;
        m_counts[i]->setObjectName(QString::fromUtf8(c.key) + QStringLiteral("_count"));
        // Fixed width: a count changing from (9) to (10) must not re-layout the window on every
        // edit.
        m_counts[i]->setFixedWidth(
            m_counts[i]->fontMetrics().horizontalAdvance(QStringLiteral("(0000)")));
        cell->addWidget(label);
        cell->addWidget(spin);
        cell->addWidget(m_counts[i]);
        m_layout->addLayout(cell);
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ThresholdPanel::onSpinChanged);
    }

    auto* buttons = new QHBoxLayout;
    m_reset = new QPushButton(tr("Reset"));
    m_reset->setObjectName(QStringLiteral("resetThresholds"));
    m_reset->setToolTip(tr("Back to the profile's thresholds"));
    auto* load = new QPushButton(tr("Load\u2026"));
    auto* save = new QPushButton(tr("Save\u2026"));
    buttons->addWidget(m_reset);
    buttons->addWidget(load);
    buttons->addWidget(save);
    m_layout->addLayout(buttons);
    m_layout->addStretch(1);

    connect(m_reset, &QPushButton::clicked, this, &ThresholdPanel::resetToProfile);
    connect(load, &QPushButton::clicked, this, &ThresholdPanel::loadRequested);
    connect(save, &QPushButton::clicked, this, &ThresholdPanel::saveRequested);
    connect(m_profileBox, &QComboBox::activated, this, [this](int index) {
        const QString name = m_profileBox->itemText(index);
        if (const auto p = ks::builtinProfile(name.toStdString())) {
            setProfile(*p);
            resetToProfile();
        } else if (const QString path = m_profileBox->itemData(index).toString(); !path.isEmpty()) {
            QString error;
            loadProfile(path, &error);
        }
    });
    setThresholds(m_profile);
}

ks::Thresholds ThresholdPanel::thresholds() const {
    ks::Thresholds t = m_profile;
    for (const auto& c : ks::criteria())
        t.set(c.criterion, m_spins[static_cast<size_t>(c.criterion)]->value());
    return t;
}

void ThresholdPanel::setThresholds(const ks::Thresholds& thresholds) {
    m_updating = true;
    for (const auto& c : ks::criteria())
        m_spins[static_cast<size_t>(c.criterion)]->setValue(thresholds.value(c.criterion));
    m_updating = false;
    if (thresholds.profile != m_profile.profile) {
        // Values from elsewhere (settings, a file): keep their profile name for Reset if we know
        // it.
        if (const auto p = ks::builtinProfile(thresholds.profile))
            m_profile = *p;
        else
            m_profile.profile = thresholds.profile;
        const int i = m_profileBox->findText(QString::fromStdString(m_profile.profile));
        if (i >= 0) m_profileBox->setCurrentIndex(i);
    }
    updateProfileLabel();
    emit thresholdsChanged(this->thresholds());
}

void ThresholdPanel::setProfile(const ks::Thresholds& profile) {
    m_profile = profile;
    m_profilePath.clear();
    const QString name = QString::fromStdString(profile.profile);
    if (m_profileBox->findText(name) < 0) m_profileBox->addItem(name);
    m_profileBox->setCurrentIndex(m_profileBox->findText(name));
    updateProfileLabel();
}

void ThresholdPanel::resetToProfile() {
    setThresholds(m_profile);
}

bool ThresholdPanel::isModified() const {
    for (const auto& c : ks::criteria())
        if (m_spins[static_cast<size_t>(c.criterion)]->value() != m_profile.value(c.criterion))
            return true;
    return false;
}

bool ThresholdPanel::loadProfile(const QString& path, QString* error) {
    try {
        const auto p = ks::parseProfile(ks::readFile(path.toStdString()), path.toStdString());
        setProfile(p);
        m_profilePath = path;
        const int i = m_profileBox->findText(QString::fromStdString(p.profile));
        m_profileBox->setItemData(i, path);
        resetToProfile();
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

bool ThresholdPanel::saveProfile(const QString& path, QString* error) const {
    try {
        ks::Thresholds t = thresholds();
        if (isModified()) t.profile = QFileInfo(path).completeBaseName().toStdString();
        ks::writeFileAtomic(path.toStdString(),
                            ks::profileToJson(t, "saved from the KernelSieve workbench"));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

void ThresholdPanel::setCounts(const std::array<int, ks::CriterionCount>& flagged) {
    for (size_t i = 0; i < flagged.size(); ++i)
        m_counts[i]->setText(QStringLiteral("(%1)").arg(flagged[i]));
}

void ThresholdPanel::setOrientation(Qt::Orientation orientation) {
    m_layout->setDirection(orientation == Qt::Horizontal ? QBoxLayout::LeftToRight
                                                         : QBoxLayout::TopToBottom);
}

void ThresholdPanel::onSpinChanged() {
    if (m_updating) return;
    updateProfileLabel();
    emit thresholdsChanged(thresholds());
}

void ThresholdPanel::updateProfileLabel() {
    const bool modified = isModified();
    m_modified->setText(modified ? tr("<i>modified</i>") : QString());
    m_reset->setEnabled(modified);
}
