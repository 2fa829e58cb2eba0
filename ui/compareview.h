// SPDX-License-Identifier: MIT
#pragma once
// The compare view: the open results (A) beside one or more other results files (B1..Bn), over
// CompareModel. A summary of the runs and what each differs in from A, "Differing only", what the
// others are judged by (each its own file's thresholds, the same as A's, or a built-in profile:
// two profiles on one run), and the table, sortable by any column. Selecting a row selects the
// task in the filter matrix. "Add File" puts another file beside A, "Remove" takes one away.

#include <ks/core/criteria.h>

#include <QWidget>

class ColumnFitter;
class CompareModel;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QTextBrowser;
class QToolButton;

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
    QPushButton* addButton() const { return m_add; }
    QToolButton* removeButton() const { return m_remove; }
    // The thresholds B is judged by, given A's and B's file's.
    ks::Thresholds thresholdsB(const ks::Thresholds& a, const ks::Thresholds& bFile) const;
    QString currentTaskId() const;
    bool selectTask(const QString& id);

  signals:
    void taskActivated(const QString& id);
    void thresholdsBChanged();
    void openRequested();
    void addRequested();
    void removeRequested(int other);
    void closeRequested();

  private:
    void update();
    void fitColumns();
    void rebuildRemoveMenu();

    CompareModel* m_model;
    QSortFilterProxyModel* m_proxy = nullptr;
    QStackedWidget* m_stack = nullptr;
    QTableView* m_table = nullptr;
    QTextBrowser* m_summary = nullptr;
    QLabel* m_empty = nullptr;
    QCheckBox* m_differingOnly = nullptr;
    QComboBox* m_thresholdsB = nullptr;
    QPushButton* m_close = nullptr;
    QPushButton* m_add = nullptr;
    QToolButton* m_remove = nullptr;
    ColumnFitter* m_fitter = nullptr;
    int m_fittedColumns = -1; // column count fitColumns() last laid out
    QString m_summaryHtml;
};
