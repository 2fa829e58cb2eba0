// SPDX-License-Identifier: MIT
#include "messagebar.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

MessageBar::MessageBar(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("messageBar"));
    setFrameShape(QFrame::StyledPanel);
    m_layout = new QHBoxLayout(this);
    auto* layout = m_layout;
    layout->setContentsMargins(8, 4, 4, 4);
    m_icon = new QLabel;
    m_text = new QLabel;
    m_text->setObjectName(QStringLiteral("messageText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton;
    close->setAutoRaise(true);
    close->setText(QStringLiteral("\u2715"));
    close->setToolTip(tr("Dismiss"));
    layout->addWidget(m_icon);
    layout->addWidget(m_text, 1);
    layout->addWidget(close, 0, Qt::AlignTop);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
}

void MessageBar::showMessage(const QString& text, Kind kind, const QList<QAction*>& actions) {
    m_kind = kind;
    m_text->setText(text);
    qDeleteAll(m_buttons);
    m_buttons.clear();
    for (int i = 0; i < actions.size(); ++i) {
        auto* b = new QToolButton;
        b->setDefaultAction(actions[i]);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        connect(b, &QToolButton::triggered, this, &QWidget::hide);
        // After the text, before the dismiss button.
        m_layout->insertWidget(2 + i, b, 0, Qt::AlignVCenter);
        m_buttons << b;
    }
    QString color;
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    switch (kind) {
    case Kind::Information:
        color = QStringLiteral("#e3f2fd");
        break;
    case Kind::Warning:
        color = QStringLiteral("#fff8e1");
        icon = QStyle::SP_MessageBoxWarning;
        break;
    case Kind::Error:
        color = QStringLiteral("#ffebee");
        icon = QStyle::SP_MessageBoxCritical;
        break;
    }
    setStyleSheet(
        QStringLiteral(
            "#messageBar { background: %1; border: 1px solid #bdbdbd; border-radius: 3px; }")
            .arg(color));
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(20, 20));
    show();
}

QString MessageBar::text() const {
    return m_text->text();
}
