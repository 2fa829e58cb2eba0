// SPDX-License-Identifier: MIT
#pragma once
// The main view: the filter matrix table with its search, level, category, "flagged only" and
// metric range controls, and an empty state that offers to run the built-in suite or open a file.

#include <ks/core/criteria.h>

#include <QWidget>

#include <array>

class FilterMatrixModel;
class FilterProxyModel;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QStackedWidget;
class QTableView;
class QToolButton;

class FilterMatrixView : public QWidget {
    Q_OBJECT
  public:
    FilterMatrixView(FilterMatrixModel* model, FilterProxyModel* proxy, QWidget* parent = nullptr);

    QTableView* tableView() const { return m_table; }
    QLineEdit* searchEdit() const { return m_search; }
    QCheckBox* flaggedOnlyBox() const { return m_flaggedOnly; }
    // "by any criterion" or one criterion (item data: -1 or the criterion's index); choosing a
    // criterion turns "flagged only" on.
    QComboBox* flaggedByBox() const { return m_flaggedBy; }
    QComboBox* levelBox() const { return m_level; }
    QComboBox* categoryBox() const { return m_category; }
    QLabel* countsLabel() const { return m_counts; }
    // "Ranges" opens a panel with a min and a max edit per criterion's metric (empty = no
    // bound; the proxy's MetricRange); the button says how many ranges are set.
    QToolButton* rangesButton() const { return m_rangesButton; }
    QLineEdit* rangeMinEdit(ks::Criterion c) const { return m_rangeMin[static_cast<size_t>(c)]; }
    QLineEdit* rangeMaxEdit(ks::Criterion c) const { return m_rangeMax[static_cast<size_t>(c)]; }
    // Sets both edits and the proxy's range (what a user typing them does).
    void setMetricRange(ks::Criterion c, const QString& min, const QString& max);
    void clearMetricRanges();
    // Opens the Ranges panel with the cursor in criterion c's min edit.
    void editRange(ks::Criterion c);
    // The header's context menu for a criterion's column: Flagged Only by it, a Range on its
    // metric, Clear its range. Null for other columns; the caller owns the menu.
    QMenu* headerContextMenu(int section);

    QString currentTaskId() const;
    QStringList selectedTaskIds() const;
    bool selectTask(const QString& id);

  signals:
    void currentTaskChanged(const QString& id);
    void selectionChanged();
    void runSuiteRequested();
    void openRequested();

  private:
    void refreshFilterChoices();
    void updateCounts();
    void updateEmptyState();
    QWidget* createRangesPanel();
    void applyRange(ks::Criterion c);
    void updateRangesButton();

    FilterMatrixModel* m_model;
    FilterProxyModel* m_proxy;
    QStackedWidget* m_stack = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_search = nullptr;
    QComboBox* m_level = nullptr;
    QComboBox* m_category = nullptr;
    QCheckBox* m_flaggedOnly = nullptr;
    QComboBox* m_flaggedBy = nullptr;
    QLabel* m_counts = nullptr;
    QToolButton* m_rangesButton = nullptr;
    std::array<QLineEdit*, ks::CriterionCount> m_rangeMin{}, m_rangeMax{};
    QString m_lastCurrent;
};
