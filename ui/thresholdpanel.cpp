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
    // firstStep: where the up arrow goes from 0 (1e-6 suits a std; a FLOP share wants 0.001).
    explicit ThresholdSpinBox(double firstStep = 1e-6) : m_firstStep(firstStep) {
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
    double m_firstStep;

    double next(double v) const {
        if (v <= 0) return m_firstStep;
        const double e = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
        for (double m : {1.0, 2.0, 5.0, 10.0})
            if (m * e > v * (1 + 1e-9)) return m * e;
        return 10 * e;
    }
    double previous(double v) const {
        if (v <= m_firstStep * (1 + 1e-9)) return 0;
        const double e = std::pow(10.0, std::floor(std::log10(v) - 1e-9));
        for (double m : {5.0, 2.0, 1.0})
            if (m * e < v * (1 - 1e-9)) return m * e;
        return e;
    }
};

} // namespace

ThresholdPanel::ThresholdPanel(QWidget* parent) : QWidget(parent) {
    // Two rows in a top or bottom dock: eight spin boxes do not fit one row of a 1280-pixel window.
    m_layout = new QBoxLayout(QBoxLayout::TopToBottom, this);
    m_layout->setContentsMargins(6, 2, 6, 2);
    m_layout->setSpacing(2);
    for (auto& row : m_rows) {
        row = new QBoxLayout(QBoxLayout::LeftToRight);
        m_layout->addLayout(row);
    }

    auto* profileCell = new QHBoxLayout;
    profileCell->addWidget(new QLabel(tr("Profile:")));
    m_profileBox = new QComboBox;
    m_profileBox->setObjectName(QStringLiteral("profile"));
    for (const auto& name : ks::builtinProfileNames())
        m_profileBox->addItem(QString::fromStdString(name));
    // The list is alphabetical (fusion-headroom first): show the profile the values come from.
    m_profileBox->setCurrentIndex(m_profileBox->findText(QString::fromStdString(m_profile.profile)));
    profileCell->addWidget(m_profileBox);
    m_modified = new QLabel;
    m_modified->setObjectName(QStringLiteral("modified"));
    profileCell->addWidget(m_modified);
    m_rows[0]->addLayout(profileCell);

    auto makeCount = [this](ks::Criterion c) {
        auto* count = new QLabel;
        count->setObjectName(QString::fromUtf8(ks::criterionInfo(c).key) + QStringLiteral("_count"));
        // Fixed width: a count changing from (9) to (10) must not re-layout the window on every
        // edit.
        count->setFixedWidth(count->fontMetrics().horizontalAdvance(QStringLiteral("(0000)")));
        count->setToolTip(tr("Tasks flagged by %1").arg(QString::fromUtf8(ks::criterionInfo(c).label)));
        m_counts[static_cast<size_t>(c)] = count;
        return count;
    };
    QBoxLayout* group = nullptr;
    for (const auto& info : ks::thresholdInfos()) {
        const bool statistical = ks::isStatistical(info.criterion);
        const auto thresholds = ks::thresholdsOf(info.criterion);
        if (!statistical && info.threshold == thresholds.front()) {
            // Filters 5-6: one group per criterion, its name first, its count after its bounds.
            group = new QBoxLayout(QBoxLayout::LeftToRight);
            m_groups.push_back(group);
            auto* name = new QLabel(QStringLiteral("<b>%1:</b>").arg(QString::fromUtf8(ks::criterionInfo(info.criterion).label)));
            name->setToolTip(tr("Flagged iff %1.<br>%2")
                                 .arg(QString::fromStdString(
                                          ks::criterionRuleText(info.criterion, ks::Thresholds::defaults()))
                                          .toHtmlEscaped(),
                                      QString::fromUtf8(ks::criterionInfo(info.criterion).description)));
            group->addWidget(name);
            m_rows[1]->addLayout(group);
            m_rows[1]->addSpacing(10);
        }
        auto* cell = new QHBoxLayout;
        const bool tolerance = ks::isTolerance(info.threshold);
        // "Range <" rather than "Output Range <": the row must fit a 1280-pixel window. A
        // tolerance is a setting, not a bound, so it gets no comparison sign.
        auto* label = new QLabel(
            tolerance ? QString::fromUtf8(info.shortLabel)
                      : QStringLiteral("%1 %2").arg(QString::fromUtf8(info.shortLabel),
                                                    info.below ? QStringLiteral("<")
                                                               : QStringLiteral("\u2265")));
        label->setToolTip(
            tolerance ? tr("The validation tolerance zeros pass checks against: %1")
                            .arg(QString::fromUtf8(info.description).toHtmlEscaped())
                      : tr("Flag when %1 %2 threshold: %3")
                            .arg(QString::fromUtf8(info.metricLabel),
                                 info.below ? QStringLiteral("&lt;") : QStringLiteral("&ge;"),
                                 QString::fromUtf8(info.description)));
        // Tolerances go down to the seed's 1e-5, so they step from 1e-6 like the statistics.
        const double firstStep = info.threshold == ks::Threshold::RedundantFlopFraction ? 1e-3
                                 : statistical || tolerance                             ? 1e-6
                                                                                        : 1e-2;
        auto* spin = new ThresholdSpinBox(firstStep);
        spin->setObjectName(QString::fromUtf8(info.key));
        spin->setToolTip(label->toolTip());
        label->setBuddy(spin);
        m_spins[static_cast<size_t>(info.threshold)] = spin;
        cell->addWidget(label);
        cell->addWidget(spin);
        if (statistical) {
            cell->addWidget(makeCount(info.criterion));
            m_rows[0]->addLayout(cell);
        } else {
            group->addLayout(cell);
            if (info.threshold == thresholds.back()) group->addWidget(makeCount(info.criterion));
        }
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ThresholdPanel::onSpinChanged);
    }

    auto* marginCell = new QHBoxLayout;
    auto* marginLabel = new QLabel(tr("Borderline \u00b1"));
    marginLabel->setToolTip(
        tr("Mark a cell borderline (~, italic) when its metric is within this share of its "
           "threshold: 0.1 = 10%. 0 turns the mark off."));
    m_margin = new ThresholdSpinBox(1e-2);
    m_margin->setObjectName(QString::fromUtf8(ks::BorderlineMarginKey));
    m_margin->setRange(0, 1);
    m_margin->setToolTip(marginLabel->toolTip());
    marginLabel->setBuddy(m_margin);
    marginCell->addWidget(marginLabel);
    marginCell->addWidget(m_margin);
    m_rows[0]->addLayout(marginCell);
    connect(m_margin, &QDoubleSpinBox::valueChanged, this, &ThresholdPanel::onSpinChanged);

    auto* buttons = new QHBoxLayout;
    m_reset = new QPushButton(tr("Reset"));
    m_reset->setObjectName(QStringLiteral("resetThresholds"));
    m_reset->setToolTip(tr("Back to the profile's thresholds"));
    auto* load = new QPushButton(tr("Load\u2026"));
    auto* save = new QPushButton(tr("Save\u2026"));
    buttons->addWidget(m_reset);
    buttons->addWidget(load);
    buttons->addWidget(save);
    m_rows[0]->addLayout(buttons);
    for (auto* row : m_rows) row->addStretch(1);

    connect(m_reset, &QPushButton::clicked, this, &ThresholdPanel::resetToProfile);
    connect(load, &QPushButton::clicked, this, &ThresholdPanel::loadRequested);
    connect(save, &QPushButton::clicked, this, &ThresholdPanel::saveRequested);
    connect(m_profileBox, &QComboBox::activated, this, [this](int index) {
        const QString name = m_profileBox->itemText(index);
        if (const auto p = ks::builtinProfile(name.toStdString())) {
            setProfile(*p);
            resetToProfile();
            emit profileChosen();
        } else if (const QString path = m_profileBox->itemData(index).toString(); !path.isEmpty()) {
            QString error;
            loadProfile(path, &error);
        }
    });
    setThresholds(m_profile);
}

QDoubleSpinBox* ThresholdPanel::spinBox(ks::Criterion c) const {
    return spinBox(ks::thresholdsOf(c).front());
}

ks::Thresholds ThresholdPanel::thresholds() const {
    ks::Thresholds t = m_profile;
    for (const auto& i : ks::thresholdInfos())
        t.set(i.threshold, m_spins[static_cast<size_t>(i.threshold)]->value());
    t.borderlineMargin = m_margin->value();
    return t;
}

void ThresholdPanel::setThresholds(const ks::Thresholds& thresholds) {
    m_updating = true;
    for (const auto& i : ks::thresholdInfos())
        m_spins[static_cast<size_t>(i.threshold)]->setValue(thresholds.value(i.threshold));
    m_margin->setValue(thresholds.borderlineMargin);
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

void ThresholdPanel::setProfile(const ks::Thresholds& profile, const QString& path) {
    m_profile = profile;
    m_profilePath = path;
    const QString name = QString::fromStdString(profile.profile);
    if (m_profileBox->findText(name) < 0) m_profileBox->addItem(name);
    m_profileBox->setCurrentIndex(m_profileBox->findText(name));
    updateProfileLabel();
}

void ThresholdPanel::resetToProfile() {
    setThresholds(m_profile);
}

bool ThresholdPanel::isModified() const {
    for (const auto& i : ks::thresholdInfos())
        if (m_spins[static_cast<size_t>(i.threshold)]->value() != m_profile.value(i.threshold))
            return true;
    return m_margin->value() != m_profile.borderlineMargin;
}

bool ThresholdPanel::loadProfile(const QString& path, QString* error) {
    try {
        const auto p = ks::parseProfile(ks::readFile(path.toStdString()), path.toStdString());
        setProfile(p);
        m_profilePath = path;
        const int i = m_profileBox->findText(QString::fromStdString(p.profile));
        m_profileBox->setItemData(i, path);
        resetToProfile();
        emit profileChosen();
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
    const auto direction = orientation == Qt::Horizontal ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    for (auto* row : m_rows) row->setDirection(direction);
    for (auto* group : m_groups) group->setDirection(direction);
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
