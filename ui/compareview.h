// SPDX-License-Identifier: MIT
#pragma once
// The compare view: the open results (A) beside a second results file (B), over CompareModel. A
// summary of both runs and what they differ in, "Differing only", what B is judged by (its own
// file's thresholds, the same as A's, or a built-in profile: two profiles on one run), and the
// table, sortable by any column. Selecting a row selects the task in the filter matrix.

#include <ks/core/criteria.h>

#include <QWidget>

class CompareModel;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QTextBrowser;

class CompareView : public QWidget {
    Q_OBJECT
  public:
    explicit CompareView(CompareModel* model, QWidget* parent = nullptr);

    QTableView* tableView() const { return m_table; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    // The summary as plain text (what the summary box shows, without markup).
    QString summaryText() const;
    QCheckBox* differingOnlyBox() const { return m_differingOnly; }
    // Item data: "file" (B's own thresholds), "a" (A's, the panel's), or a built-in profile name.
    QComboBox* thresholdsBox() const { return m_thresholdsB; }
    // The thresholds B is judged by, given A's and B's file's.
    ks::Thresholds thresholdsB(const ks::Thresholds& a, const ks::Thresholds& bFile) const;
    QString currentTaskId() const;
    bool selectTask(const QString& id);

  signals:
    void taskActivated(const QString& id);
    void thresholdsBChanged();
    void openRequested();
    void closeRequested();

  private:
    void update();

    CompareModel* m_model;
    QSortFilterProxyModel* m_proxy = nullptr;
    QStackedWidget* m_stack = nullptr;
    QTableView* m_table = nullptr;
    QTextBrowser* m_summary = nullptr;
    QLabel* m_empty = nullptr;
    QCheckBox* m_differingOnly = nullptr;
    QComboBox* m_thresholdsB = nullptr;
    QPushButton* m_close = nullptr;
    QString m_summaryHtml;
};
