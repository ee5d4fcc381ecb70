module lifo8 (
    input  wire       clk,
    input  wire       rst,
    input  wire       push,
    input  wire [7:0] din,
    input  wire       pop,
    output wire [7:0] top,
    output wire       empty,
    output wire       full,
    output wire [3:0] depth
);
    reg [7:0] mem [0:7];
    reg [3:0] sp;  // number of entries; the top lives at sp - 1

    wire [2:0] top_idx = sp[2:0] - 3'd1;

    assign depth = sp;
    assign empty = (sp == 4'd0);
    assign full  = (sp == 4'd8);
    assign top   = empty ? 8'h00 : mem[top_idx];

    always @(posedge clk) begin
        if (rst) begin
            sp <= 4'd0;
        end else if (push && pop && !empty) begin
            mem[top_idx] <= din;
        end else if (push && !full) begin
            mem[sp[2:0]] <= din;
            sp <= sp + 4'd1;
        end else if (pop && !push && !empty) begin
            sp <= sp - 4'd1;
        end
    end
endmodule
