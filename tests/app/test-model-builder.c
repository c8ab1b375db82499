/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-model-builder.c: adding, editing, reordering and removing layers give
 * the expected spec (a layer added goes before the output layer); the spec
 * text and the layers stay in sync, also while a typed text names an
 * unknown layer; a layer that does not fit is marked with the engine's
 * message and disables Start; parameter counts are grouped in thousands; the
 * rows' own controls edit, move and remove their layers.
 */
#include <string.h>

#include <adwaita.h>

#include "tb-application.h"
#include "tb-model-builder.h"
#include "tb-model-page.h"
#include "tb-window.h"
#include "test-gui-util.h"

static int valid_notifies;

static void
valid_cb (GObject    *object,
          GParamSpec *pspec,
          gpointer    data)
{
  valid_notifies++;
}

static void
test_add_edit_remove (void)
{
  TbModelBuilder *b = TB_MODEL_BUILDER (g_object_ref_sink (tb_model_builder_new ()));
  NnLayerSpec l;

  g_assert_cmpuint (tb_model_builder_get_n_layers (b), ==, 0);
  g_assert_false (tb_model_builder_is_valid (b));

  tb_model_builder_add_layer (b, NN_LAYER_FLATTEN);
  tb_model_builder_add_layer (b, NN_LAYER_DENSE);
  tb_model_builder_add_layer (b, NN_LAYER_DENSE);
  g_assert_cmpuint (tb_model_builder_get_n_layers (b), ==, 3);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 relu; dense 64 relu");
  /* 64 outputs, 10 classes: not trainable yet */
  g_assert_false (tb_model_builder_is_valid (b));

  /* edit the last layer in place: 10 softmax units */
  l = *tb_model_builder_get_layer (b, 2);
  l.units = 10;
  l.activation = NN_ACT_SOFTMAX;
  tb_model_builder_set_layer (b, 2, &l);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 relu; dense 10 softmax");
  g_assert_true (tb_model_builder_is_valid (b));
  g_assert_cmpint (tb_model_builder_get_params (b), ==, 784 * 64 + 64 + 64 * 10 + 10);

  /* a dropout added goes before the classifier */
  tb_model_builder_add_layer (b, NN_LAYER_DROPOUT);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 relu; dropout 0.25; dense 10 softmax");

  /* reorder, then remove */
  tb_model_builder_move_layer (b, 2, 1);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dropout 0.25; dense 64 relu; dense 10 softmax");
  tb_model_builder_remove_layer (b, 1);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 relu; dense 10 softmax");
  g_assert_true (tb_model_builder_is_valid (b));

  g_object_unref (b);
}

static void
test_text_sync (void)
{
  TbModelBuilder *b = TB_MODEL_BUILDER (g_object_ref_sink (tb_model_builder_new ()));
  int layer = -2;

  g_signal_connect (b, "notify::valid", G_CALLBACK (valid_cb), NULL);
  valid_notifies = 0;

  g_assert_true (tb_model_builder_set_spec_text (b, "conv2d 8 3 relu; maxpool 2; flatten; dense 10 softmax"));
  g_assert_cmpuint (tb_model_builder_get_n_layers (b), ==, 4);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->kind, ==, NN_LAYER_CONV2D);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->filters, ==, 8);
  g_assert_true (tb_model_builder_is_valid (b));
  g_assert_cmpint (valid_notifies, ==, 1);
  /* conv 8*9+8, dense 8*13*13*10+10 */
  g_assert_cmpint (tb_model_builder_get_params (b), ==, 80 + 8 * 13 * 13 * 10 + 10);

  /* text that does not parse: an error, not valid, and the layers are the
   * text's that do parse, not the ones before */
  g_assert_false (tb_model_builder_set_spec_text (b, "conv2d 8 3 relu; frobnicate 3"));
  g_assert_false (tb_model_builder_is_valid (b));
  g_assert_nonnull (tb_model_builder_get_error (b, &layer));
  g_test_message ("parse error: %s", tb_model_builder_get_error (b, NULL));
  g_assert_cmpuint (tb_model_builder_get_n_layers (b), ==, 1);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->filters, ==, 8);
  g_assert_cmpint (valid_notifies, ==, 2);

  /* a preset loads its spec and its name; an edit drops the name */
  g_assert_true (tb_model_builder_load_preset (b, "cnn"));
  g_assert_cmpstr (tb_model_builder_get_preset_name (b), ==, "cnn");
  g_assert_true (tb_model_builder_is_valid (b));
  g_assert_cmpint (tb_model_builder_get_params (b), ==, 1199882);
  tb_model_builder_remove_layer (b, 3);
  g_assert_null (tb_model_builder_get_preset_name (b));
  g_assert_false (tb_model_builder_load_preset (b, "no-such-preset"));

  g_object_unref (b);
}

static void
test_invalid_layer (void)
{
  /* with the app, so its style sheet marks the invalid row */
  g_autoptr(TbApplication) app = tb_test_app_new (0);
  TbWindow *window;
  TbModelBuilder *b;
  int layer = -1;
  const char *error;

  window = tb_window_new (ADW_APPLICATION (app));
  b = tb_window_get_builder (window);
  gtk_window_present (GTK_WINDOW (window));
  tb_window_set_dataset (window, "/no/such/data", 0, 0);
  tb_test_spin (300);

  /* a dense layer right on an image input does not fit: flatten is missing */
  g_assert_true (tb_model_builder_set_spec_text (b, "conv2d 4 3 relu; dense 10 softmax; maxpool 2"));
  g_assert_false (tb_model_builder_is_valid (b));
  error = tb_model_builder_get_error (b, &layer);
  g_assert_nonnull (error);
  g_test_message ("layer %d: %s", layer + 1, error);
  /* the layer that does not fit is the dense one, and the engine's message
   * says what is wrong with it */
  g_assert_cmpint (layer, ==, 1);
  g_assert_nonnull (strstr (error, "flatten"));

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  tb_window_show_page (window, "model");
  tb_test_spin (400);
  {
    g_autoptr(GError) shot_error = NULL;

    if (!tb_test_screenshot (GTK_WIDGET (window), SCREENSHOT_DIR "/screenshot-invalid-layer.png", &shot_error))
      g_test_message ("screenshot: %s", shot_error->message);
  }

  /* Start is disabled while the model is invalid */
  g_assert_false (tb_window_start_enabled (window));
  g_assert_true (tb_model_builder_set_spec_text (b, "flatten; dense 10 softmax"));
  g_assert_true (tb_model_builder_is_valid (b));
  /* (still no usable data set chosen here, so Start stays off for that) */

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The first label under `widget` whose text ends in `suffix`. */
static GtkLabel *
find_label (GtkWidget  *widget,
            const char *suffix)
{
  if (GTK_IS_LABEL (widget) && g_str_has_suffix (gtk_label_get_text (GTK_LABEL (widget)), suffix))
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label (child, suffix);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_params_grouped (void)
{
  TbModelBuilder *b = TB_MODEL_BUILDER (g_object_ref_sink (tb_model_builder_new ()));
  GtkLabel *total;

  /* the tests run in C.UTF-8, whose own grouping is none */
  g_assert_true (tb_model_builder_set_spec_text (b, "flatten; dense 128 relu; dropout 0.2; dense 10 softmax"));
  total = find_label (GTK_WIDGET (b), " parameters");
  g_assert_nonnull (total);
  g_assert_cmpstr (gtk_label_get_text (total), ==, "101\u202f770 parameters");
  /* and each layer's count */
  g_assert_nonnull (find_label (GTK_WIDGET (b), "100\u202f480"));
  g_object_unref (b);
}

/* "Add Layer" on the Model page, as a click on its menu's item does: every
 * kind, a dense layer too, goes before the softmax output, so the model
 * stays valid. */
static void
test_add_before_output (void)
{
  g_autoptr(TbApplication) app = tb_test_app_new (0);
  TbWindow *window = tb_window_new (ADW_APPLICATION (app));
  TbModelBuilder *b = tb_window_get_builder (window);
  const NnLayerSpec *l;
  guint n;

  gtk_window_present (GTK_WINDOW (window));
  tb_window_show_page (window, "model");
  gtk_widget_activate_action (GTK_WIDGET (b), "builder.preset", "s", "mlp-small");
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 128 relu; dropout 0.2; dense 10 softmax");

  gtk_widget_activate_action (GTK_WIDGET (b), "builder.add", "i", (gint32) NN_LAYER_DENSE);
  n = tb_model_builder_get_n_layers (b);
  g_assert_cmpuint (n, ==, 5);
  l = tb_model_builder_get_layer (b, n - 2);
  g_assert_cmpint (l->kind, ==, NN_LAYER_DENSE);
  g_assert_cmpint (l->units, ==, 64);
  g_assert_cmpint (l->activation, ==, NN_ACT_RELU);
  l = tb_model_builder_get_layer (b, n - 1);
  g_assert_cmpint (l->kind, ==, NN_LAYER_DENSE);
  g_assert_cmpint (l->activation, ==, NN_ACT_SOFTMAX);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==,
                   "flatten; dense 128 relu; dropout 0.2; dense 64 relu; dense 10 softmax");
  g_assert_true (tb_model_builder_is_valid (b));
  g_assert_null (tb_model_builder_get_error (b, NULL));

  /* as Conv 2D already did */
  gtk_widget_activate_action (GTK_WIDGET (b), "builder.preset", "s", "cnn");
  gtk_widget_activate_action (GTK_WIDGET (b), "builder.add", "i", (gint32) NN_LAYER_CONV2D);
  n = tb_model_builder_get_n_layers (b);
  g_assert_cmpint (tb_model_builder_get_layer (b, n - 2)->kind, ==, NN_LAYER_CONV2D);
  g_assert_cmpint (tb_model_builder_get_layer (b, n - 1)->activation, ==, NN_ACT_SOFTMAX);

  /* a logits layer followed by its softmax is one output: new layers go
   * before both */
  g_assert_true (tb_model_builder_set_spec_text (b, "flatten; dense 10; activation softmax"));
  g_assert_true (tb_model_builder_is_valid (b));
  gtk_widget_activate_action (GTK_WIDGET (b), "builder.add", "i", (gint32) NN_LAYER_DENSE);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 relu; dense 10; softmax");
  g_assert_true (tb_model_builder_is_valid (b));

  gtk_window_destroy (GTK_WINDOW (window));
}

static GtkWidget *
find_widget (GtkWidget *widget,
             GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The button under `widget` that shows `icon`. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *icon)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), icon) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, icon);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The row of layer `index` in the builder's list. */
static GtkWidget *
layer_row (TbModelBuilder *b,
           int             index)
{
  GtkWidget *list = find_widget (GTK_WIDGET (b), GTK_TYPE_LIST_BOX);
  GtkWidget *row = GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), index));

  g_assert_nonnull (row);
  return row;
}

/* The rows' own controls edit the layers, as a person does: a spin button,
 * a drop-down, and the buttons that move and remove a layer. */
static void
test_row_controls (void)
{
  TbModelBuilder *b = TB_MODEL_BUILDER (g_object_ref_sink (tb_model_builder_new ()));
  GtkWidget *spin;

  g_assert_true (tb_model_builder_set_spec_text (b, "flatten; dense 128 relu; dropout 0.2; dense 10 softmax"));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_widget (layer_row (b, 1), GTK_TYPE_SPIN_BUTTON)), 64);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 relu; dropout 0.2; dense 10 softmax");
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_widget (layer_row (b, 1), GTK_TYPE_DROP_DOWN)), NN_ACT_TANH);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 tanh; dropout 0.2; dense 10 softmax");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_widget (layer_row (b, 2), GTK_TYPE_SPIN_BUTTON)), 0.5);
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 tanh; dropout 0.5; dense 10 softmax");
  g_assert_true (tb_model_builder_is_valid (b));

  g_signal_emit_by_name (find_button (layer_row (b, 2), "go-up-symbolic"), "clicked");
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dropout 0.5; dense 64 tanh; dense 10 softmax");
  g_signal_emit_by_name (find_button (layer_row (b, 0), "go-down-symbolic"), "clicked");
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "dropout 0.5; flatten; dense 64 tanh; dense 10 softmax");
  /* the first layer goes no higher, the last no lower */
  g_signal_emit_by_name (find_button (layer_row (b, 0), "go-up-symbolic"), "clicked");
  g_signal_emit_by_name (find_button (layer_row (b, 3), "go-down-symbolic"), "clicked");
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "dropout 0.5; flatten; dense 64 tanh; dense 10 softmax");
  g_signal_emit_by_name (find_button (layer_row (b, 0), "user-trash-symbolic"), "clicked");
  g_assert_cmpstr (tb_model_builder_get_spec_text (b), ==, "flatten; dense 64 tanh; dense 10 softmax");

  /* a convolution's kernel and padding; a pooling's window is its stride too */
  g_assert_true (tb_model_builder_set_spec_text (b, "conv2d 8 3 relu; maxpool 2; flatten; dense 10 softmax"));
  spin = find_widget (layer_row (b, 0), GTK_TYPE_SPIN_BUTTON);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 16);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->filters, ==, 16);
  /* the kernel's, in the setting after the filters' */
  spin = gtk_widget_get_next_sibling (gtk_widget_get_ancestor (spin, GTK_TYPE_FLOW_BOX_CHILD));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_widget (spin, GTK_TYPE_SPIN_BUTTON)), 5);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->kernel_h, ==, 5);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->kernel_w, ==, 5);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->stride_h, ==, 1);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_widget (layer_row (b, 0), GTK_TYPE_DROP_DOWN)), 1);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->padding, ==, NN_PADDING_SAME);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_widget (layer_row (b, 1), GTK_TYPE_SPIN_BUTTON)), 3);
  g_assert_cmpint (tb_model_builder_get_layer (b, 1)->kernel_h, ==, 3);
  g_assert_cmpint (tb_model_builder_get_layer (b, 1)->stride_h, ==, 3);
  g_test_message ("%s", tb_model_builder_get_spec_text (b));
  g_assert_true (tb_model_builder_is_valid (b));

  g_object_unref (b);
}

/* The error labels shown under `widget`, the text of the last in *text. */
static guint
count_shown_errors (GtkWidget   *widget,
                    const char **text)
{
  guint n = 0;

  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "error") && gtk_widget_is_visible (widget))
    {
      *text = gtk_label_get_text (GTK_LABEL (widget));
      n++;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_shown_errors (child, text);
  return n;
}

/* Type `text` at the end of `editable`, a character at a time, each one a
 * change as a key press is. */
static void
type_text (GtkEditable *editable,
           const char  *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      int pos = (int) g_utf8_strlen (gtk_editable_get_text (editable), -1);

      gtk_editable_insert_text (editable, p, (int) (g_utf8_next_char (p) - p), &pos);
    }
}

/* A spec typed into the text field with one unknown layer: the list keeps
 * every other layer, and the one error shown names the unknown one (no
 * stale error of a shorter text on a row). */
static void
test_typed_unknown_layer (void)
{
  g_autoptr(TbApplication) app = tb_test_app_new (0);
  TbWindow *window = tb_window_new (ADW_APPLICATION (app));
  TbModelBuilder *b = tb_window_get_builder (window);
  GtkEditable *entry = GTK_EDITABLE (find_widget (GTK_WIDGET (b), GTK_TYPE_ENTRY));
  const char *shown = NULL;
  int layer = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  gtk_window_present (GTK_WINDOW (window));
  tb_window_show_page (window, "model");
  tb_test_spin (200);

  /* all of the text selected and typed over */
  gtk_editable_delete_text (entry, 0, -1);
  type_text (entry, "flatten; dense 128 relu; frobnicate 3; dense 10 softmax");
  tb_test_spin (200);

  g_assert_false (tb_model_builder_is_valid (b));
  g_assert_cmpuint (tb_model_builder_get_n_layers (b), ==, 3);
  g_assert_cmpint (tb_model_builder_get_layer (b, 0)->kind, ==, NN_LAYER_FLATTEN);
  g_assert_cmpint (tb_model_builder_get_layer (b, 1)->kind, ==, NN_LAYER_DENSE);
  g_assert_cmpint (tb_model_builder_get_layer (b, 1)->units, ==, 128);
  g_assert_cmpint (tb_model_builder_get_layer (b, 2)->kind, ==, NN_LAYER_DENSE);
  g_assert_cmpint (tb_model_builder_get_layer (b, 2)->activation, ==, NN_ACT_SOFTMAX);
  g_test_message ("error: %s", tb_model_builder_get_error (b, &layer));
  g_assert_nonnull (strstr (tb_model_builder_get_error (b, NULL), "frobnicate"));
  g_assert_nonnull (strstr (tb_model_builder_get_error (b, NULL), "layer 3"));
  g_assert_cmpint (layer, ==, -1);
  g_assert_cmpuint (count_shown_errors (GTK_WIDGET (b), &shown), ==, 1);
  g_assert_nonnull (strstr (shown, "frobnicate"));
  /* the text is left as typed */
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "flatten; dense 128 relu; frobnicate 3; dense 10 softmax");
  {
    g_autoptr(GError) shot_error = NULL;

    if (!tb_test_screenshot (GTK_WIDGET (window), SCREENSHOT_DIR "/screenshot-unknown-layer.png", &shot_error))
      g_test_message ("screenshot: %s", shot_error->message);
  }

  /* the layer named right: all four, valid, no error */
  gtk_editable_delete_text (entry, 0, -1);
  type_text (entry, "flatten; dense 128 relu; dropout 0.3; dense 10 softmax");
  g_assert_true (tb_model_builder_is_valid (b));
  g_assert_cmpuint (tb_model_builder_get_n_layers (b), ==, 4);
  g_assert_cmpuint (count_shown_errors (GTK_WIDGET (b), &shown), ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

static const char *
preset_line (TbWindow *window)
{
  GtkWidget *page = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (window), TB_TYPE_WINDOW, "model_page"));
  GtkWidget *label = GTK_WIDGET (gtk_widget_get_template_child (page, TB_TYPE_MODEL_PAGE, "preset_label"));

  g_assert_true (gtk_widget_is_visible (label));
  return gtk_label_get_text (GTK_LABEL (label));
}

/* The Model page names the preset loaded, says when the user has modified
 * it, and names it again when the layers are edited back to it. */
static void
test_preset_named (void)
{
  g_autoptr(TbApplication) app = tb_test_app_new (0);
  TbWindow *window = tb_window_new (ADW_APPLICATION (app));
  TbModelBuilder *b = tb_window_get_builder (window);
  GtkEditable *entry = GTK_EDITABLE (find_widget (GTK_WIDGET (b), GTK_TYPE_ENTRY));
  NnLayerSpec l;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  gtk_window_present (GTK_WINDOW (window));
  tb_window_show_page (window, "model");
  tb_test_spin (200);

  /* the app opens with the first article model */
  g_assert_cmpstr (preset_line (window), ==, "Preset: Small MLP (784-128-10)");

  gtk_widget_activate_action (GTK_WIDGET (b), "builder.preset", "s", "cnn");
  g_assert_cmpstr (preset_line (window), ==, "Preset: Small CNN (Keras mnist_cnn)");
  g_assert_cmpstr (tb_model_builder_get_preset_name (b), ==, "cnn");

  /* the first convolution with 16 filters instead of 32 */
  l = *tb_model_builder_get_layer (b, 0);
  l.filters = 16;
  tb_model_builder_set_layer (b, 0, &l);
  g_assert_cmpstr (preset_line (window), ==, "Preset: Small CNN (Keras mnist_cnn), modified");
  g_assert_null (tb_model_builder_get_preset_name (b));
  tb_test_spin (200);
  {
    g_autoptr(GError) shot_error = NULL;

    if (!tb_test_screenshot (GTK_WIDGET (window), SCREENSHOT_DIR "/screenshot-preset-modified.png", &shot_error))
      g_test_message ("screenshot: %s", shot_error->message);
  }

  /* and back: it is the preset again, a run of it is recorded as such */
  l.filters = 32;
  tb_model_builder_set_layer (b, 0, &l);
  g_assert_cmpstr (preset_line (window), ==, "Preset: Small CNN (Keras mnist_cnn)");
  g_assert_cmpstr (tb_model_builder_get_preset_name (b), ==, "cnn");

  /* typing in the text is an edit too */
  type_text (entry, "; dropout 0.1");
  g_assert_cmpstr (preset_line (window), ==, "Preset: Small CNN (Keras mnist_cnn), modified");

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  int status;

  if ((status = tb_test_gui_init (&argc, &argv, NULL)) >= 0)
    return status;
  g_test_add_func ("/builder/add-edit-remove", test_add_edit_remove);
  g_test_add_func ("/builder/text-sync", test_text_sync);
  g_test_add_func ("/builder/invalid-layer", test_invalid_layer);
  g_test_add_func ("/builder/params-grouped", test_params_grouped);
  g_test_add_func ("/builder/add-before-output", test_add_before_output);
  g_test_add_func ("/builder/typed-unknown-layer", test_typed_unknown_layer);
  g_test_add_func ("/builder/preset-named", test_preset_named);
  g_test_add_func ("/builder/row-controls", test_row_controls);
  return g_test_run ();
}
