// SPDX-License-Identifier: MIT
#pragma once
// How the main window lays itself out for its size (issue 14, point 6): the policy, kept out of
// MainWindow. Compact below 780 px of height (1280 x 720, 1366 x 768): no tool bar (every action
// is in the menus, with its shortcut), no title row on the thresholds' dock, a shorter matrix.
// Wide from 1800 x 1000: a taller matrix. Regular between. The thresholds panel sits in a scroll
// area, so the window never grows past a 1280 px screen for it; "Focus on the Views" collapses
// the filter matrix so the charts and tables below get the height.

#include <QObject>
#include <QSize>

class QAction;
class QDockWidget;
class QMainWindow;
class QScrollArea;
class QSplitter;
class QToolBar;
class QWidget;

class WindowLayout : public QObject {
    Q_OBJECT
  public:
    enum class Mode { Compact, Regular, Wide };
    static Mode modeFor(const QSize& size);

    // `split` holds the matrix (0) above the views (1); `panel` is the thresholds panel inside
    // `scroll`, the dock's widget.
    WindowLayout(QMainWindow* window, QDockWidget* dock, QScrollArea* scroll, QWidget* panel,
                 QSplitter* split);

    void setToolBar(QToolBar* toolBar) { m_toolBar = toolBar; }
    // From the window's resizeEvent: the mode for the new size (applied the first time as well:
    // a restored window state may hold a compact session's hidden tool bar).
    void windowResized(const QSize& size);
    // From the dock's dockLocationChanged: top/bottom or a side.
    void fitThresholdDock();
    Mode mode() const { return m_mode; }

    void setViewsFocused(bool on);
    bool viewsFocused() const;
    // After the split's sizes were restored (settings): the action follows a collapsed matrix.
    void splitRestored();
    QAction* focusViewsAction() const { return m_focusViews; }

  private:
    void apply(Mode mode);

    QMainWindow* m_window;
    QDockWidget* m_dock;
    QScrollArea* m_scroll;
    QWidget* m_panel;
    QSplitter* m_split;
    QToolBar* m_toolBar = nullptr;
    QAction* m_focusViews = nullptr;
    Mode m_mode = Mode::Regular;
    bool m_applied = false;
    int m_matrixHeightBeforeFocus = 0;
};
