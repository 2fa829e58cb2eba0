// SPDX-License-Identifier: MIT
#pragma once
// An inline, non-modal message strip above the views (KMessageWidget style): run failures and
// file errors are shown here, so a failed run never blocks the window behind a dialog.

#include <QFrame>

class QLabel;

class MessageBar : public QFrame {
    Q_OBJECT
  public:
    enum class Kind { Information, Warning, Error };

    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(const QString& text, Kind kind);
    QString text() const;
    Kind kind() const { return m_kind; }

  private:
    QLabel* m_icon = nullptr;
    QLabel* m_text = nullptr;
    Kind m_kind = Kind::Information;
};
