module sync_fifo8 (
    input  wire       clk,
    input  wire       rst,
    input  wire       wr_en,
    input  wire [7:0] din,
    input  wire       rd_en,
    output reg  [7:0] dout,
    output wire       full,
    output wire       empty,
    output wire [3:0] count
);
    reg [7:0] mem [0:7];
    reg [2:0] wptr, rptr;
    reg [3:0] used;

    wire do_write = wr_en && !full;
    wire do_read  = rd_en && !empty;

    assign count = used;
    assign full  = (used == 4'd8);
    assign empty = (used == 4'd0);

    always @(posedge clk) begin
        if (do_write && !rst)
            mem[wptr] <= din;
    end

    always @(posedge clk) begin
        if (rst) begin
            wptr <= 3'd0;
            rptr <= 3'd0;
            used <= 4'd0;
            dout <= 8'h00;
        end else begin
            if (do_write)
                wptr <= wptr + 3'd1;
            if (do_read) begin
                dout <= mem[rptr];
                rptr <= rptr + 3'd1;
            end
            if (do_write && !do_read)
                used <= used + 4'd1;
            else if (do_read && !do_write)
                used <= used - 4'd1;
        end
    end
endmodule
