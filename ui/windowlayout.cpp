// SPDX-License-Identifier: MIT
#include "windowlayout.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QToolBar>

#include <algorithm>

WindowLayout::WindowLayout(QMainWindow* window, QDockWidget* dock, QScrollArea* scroll,
                           QWidget* panel, QSplitter* split)
    : QObject(window), m_window(window), m_dock(dock), m_scroll(scroll), m_panel(panel),
      m_split(split) {
    m_focusViews = new QAction(tr("Focus on the &Views"), this);
    m_focusViews->setObjectName(QStringLiteral("focusViews"));
    m_focusViews->setCheckable(true);
    m_focusViews->setShortcut(QKeySequence(tr("Ctrl+Shift+V")));
    m_focusViews->setToolTip(
        tr("Collapse the filter matrix so the charts and tables below get the window's height"));
    connect(m_focusViews, &QAction::toggled, this, &WindowLayout::setViewsFocused);
    // Dragging the handle to the top is the same as the action.
    connect(m_split, &QSplitter::splitterMoved, this, [this] {
        QSignalBlocker block(m_focusViews);
        m_focusViews->setChecked(m_split->sizes().value(0) == 0);
    });
}

WindowLayout::Mode WindowLayout::modeFor(const QSize& size) {
    // 1280 x 720 and 1366 x 768 class screens: every row of chrome costs chart height.
    if (size.height() < 780) return Mode::Compact;
    if (size.width() >= 1800 && size.height() >= 1000) return Mode::Wide;
    return Mode::Regular;
}

void WindowLayout::windowResized(const QSize& size) {
    const Mode mode = modeFor(size);
    if (mode != m_mode || !m_applied)
        apply(mode);
    else
        fitThresholdDock(); // a scroll bar under the panel comes and goes with the width
}

void WindowLayout::apply(Mode mode) {
    m_mode = mode;
    m_applied = true;
    const bool compact = mode == Mode::Compact;
    // Compact: the tool bar's actions are all in the menus, and the thresholds' dock keeps its
    // panel but not its title row: about 55 px more for the views.
    if (m_toolBar) m_toolBar->setVisible(!compact);
    if (compact && !m_dock->titleBarWidget()) {
        m_dock->setTitleBarWidget(new QWidget(m_dock));
    } else if (!compact && m_dock->titleBarWidget()) {
        QWidget* bar = m_dock->titleBarWidget();
        m_dock->setTitleBarWidget(nullptr);
        delete bar;
    }
    // The split the window's height allows: a few matrix rows and readable charts when short,
    // more rows when tall. Not while the matrix is collapsed on purpose.
    if (!m_focusViews->isChecked()) {
        const int total = std::max(1, m_split->sizes().value(0) + m_split->sizes().value(1));
        const double matrixShare = compact ? 0.36 : mode == Mode::Wide ? 0.46 : 0.42;
        const int matrix = int(total * matrixShare);
        m_split->setSizes({matrix, total - matrix});
    }
    fitThresholdDock();
}

void WindowLayout::setViewsFocused(bool on) {
    {
        QSignalBlocker block(m_focusViews);
        m_focusViews->setChecked(on);
    }
    const QList<int> sizes = m_split->sizes();
    const int total = std::max(1, sizes.value(0) + sizes.value(1));
    if (on) {
        if (sizes.value(0) > 0) m_matrixHeightBeforeFocus = sizes.value(0);
        m_split->setSizes({0, total});
    } else {
        const int matrix =
            m_matrixHeightBeforeFocus > 0 ? m_matrixHeightBeforeFocus : int(total * 0.42);
        m_split->setSizes({matrix, total - matrix});
    }
}

void WindowLayout::splitRestored() {
    QSignalBlocker block(m_focusViews);
    m_focusViews->setChecked(viewsFocused());
}

bool WindowLayout::viewsFocused() const {
    return m_split->sizes().value(0) == 0;
}

void WindowLayout::fitThresholdDock() {
    // Docked on top or bottom: exactly the panel's height (plus a scroll bar when the window is
    // narrower than the panel); on a side: as tall as the window allows, scrolling down.
    const Qt::DockWidgetArea area = m_window->dockWidgetArea(m_dock);
    const bool side = area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
    if (side) {
        m_scroll->setMinimumHeight(0);
        m_scroll->setMaximumHeight(QWIDGETSIZE_MAX);
        m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        m_scroll->setMinimumWidth(m_panel->sizeHint().width() +
                                  m_scroll->verticalScrollBar()->sizeHint().width());
        return;
    }
    m_scroll->setMinimumWidth(0);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    const bool scrolls = m_scroll->width() < m_panel->minimumSizeHint().width();
    m_scroll->setFixedHeight(m_panel->sizeHint().height() +
                             (scrolls ? m_scroll->horizontalScrollBar()->sizeHint().height() : 0));
}
