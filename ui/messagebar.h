// SPDX-License-Identifier: MIT
#pragma once
// An inline, non-modal message strip above the views (KMessageWidget style): run failures and
// file errors are shown here, so a failed run never blocks the window behind a dialog. A message
// may carry actions ("Use my thresholds", "Open as a separate file"): one click, no dialog.

#include <QFrame>

class QAction;
class QHBoxLayout;
class QLabel;
class QToolButton;

class MessageBar : public QFrame {
    Q_OBJECT
  public:
    enum class Kind { Information, Warning, Error };

    explicit MessageBar(QWidget* parent = nullptr);

    // `actions` become buttons after the text (the bar does not own them); triggering one
    // hides the bar.
    void showMessage(const QString& text, Kind kind, const QList<QAction*>& actions = {});
    QString text() const;
    Kind kind() const { return m_kind; }
    QList<QToolButton*> actionButtons() const { return m_buttons; }

  private:
    QHBoxLayout* m_layout = nullptr;
    QLabel* m_icon = nullptr;
    QLabel* m_text = nullptr;
    QList<QToolButton*> m_buttons;
    Kind m_kind = Kind::Information;
};
